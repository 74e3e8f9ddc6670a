/// The recent history of one control's value at several resolutions
/// (`SeriesTier`): per bucket its min, max and last value. Bounded by the
/// tiers' capacities whatever the publish rate; a pure value, the caller
/// passes the time (Unix milliseconds). docs/series.md.
public struct Series: Sendable, Hashable {
    /// One ring per tier, finest first.
    public private(set) var rings: [SeriesRing]

    public init(tiers: [SeriesTier] = SeriesTier.standard) {
        precondition(!tiers.isEmpty, "a series needs a tier")
        rings = tiers.map { SeriesRing(tier: $0) }
    }

    /// A series from stored buckets, `stored[i]` for tier `i` in any order
    /// (missing tiers start empty); more than a tier holds is trimmed.
    public init(tiers: [SeriesTier] = SeriesTier.standard, restoring stored: [[SeriesBucket]]) {
        self.init(tiers: tiers)
        for i in rings.indices where i < stored.count {
            rings[i] = SeriesRing(tier: tiers[i], buckets: stored[i])
        }
    }

    /// Records `value` at `time`; returns, per tier, the bucket it went into
    /// (what a store must write). A time before the newest bucket of a tier (a
    /// clock stepped back) counts in that newest bucket: history is never rewritten.
    @discardableResult
    public mutating func add(_ value: Double, at time: Int64) -> [SeriesBucket] {
        rings.indices.map { rings[$0].add(value, at: time) }
    }

    /// Buckets held, all tiers together (the memory bound is the tiers' capacities).
    public var bucketCount: Int { rings.reduce(0) { $0 + $1.buckets.count } }

    /// At most `limit` points of `[from, to]` (either end open when `nil`):
    /// the finest tier that still holds `from` and has no more than `limit`
    /// buckets there; when none has so few, the coarsest, with every run of
    /// k neighbouring buckets read as one (`width` k times the tier's).
    public func points(from: Int64? = nil, to: Int64? = nil, limit: Int) -> SeriesPoints {
        let limit = Swift.max(1, limit)
        guard let origin = rings.last?.buckets.first?.start else {
            return SeriesPoints(width: rings[0].tier.width, buckets: [])
        }
        let low = from ?? origin
        let high = to ?? .max
        for ring in rings where holds(ring, low, origin: origin) {
            let span = ring.buckets(overlapping: low, high)
            if span.count <= limit { return SeriesPoints(width: ring.tier.width, buckets: span) }
        }
        let coarsest = rings[rings.count - 1]
        let span = coarsest.buckets(overlapping: low, high)
        let k = (span.count + limit - 1) / limit
        var merged: [SeriesBucket] = []
        merged.reserveCapacity(limit)
        for (i, bucket) in span.enumerated() {
            if i % k == 0 { merged.append(bucket) } else { merged[merged.count - 1].absorb(bucket) }
        }
        return SeriesPoints(width: coarsest.tier.width * Int64(k), buckets: merged)
    }

    /// Whether `ring` holds what there is at `time`: its oldest bucket is no
    /// later, or it never dropped any (its oldest is within the coarsest tier's
    /// first bucket, where the series began).
    private func holds(_ ring: SeriesRing, _ time: Int64, origin: Int64) -> Bool {
        guard let first = ring.buckets.first?.start else { return false }
        let coarse = rings[rings.count - 1].tier.width
        return first <= time || first < origin + coarse
    }
}

/// A read-out of a series: buckets oldest first, each `width` ms wide.
public struct SeriesPoints: Sendable, Hashable {
    public var width: Int64
    public var buckets: [SeriesBucket]

    public init(width: Int64, buckets: [SeriesBucket]) {
        self.width = width
        self.buckets = buckets
    }
}

/// One tier's buckets, oldest first: at most its capacity, spanning at most
/// its span back from the newest.
public struct SeriesRing: Sendable, Hashable {
    public let tier: SeriesTier
    public private(set) var buckets: [SeriesBucket] = []

    init(tier: SeriesTier) {
        self.tier = tier
    }

    init(tier: SeriesTier, buckets stored: [SeriesBucket]) {
        self.tier = tier
        buckets = stored.sorted { $0.start < $1.start }
        if let newest = buckets.last?.start { trim(newest: newest) }
    }

    mutating func add(_ value: Double, at time: Int64) -> SeriesBucket {
        let start = tier.bucketStart(time)
        if let newest = buckets.last?.start, start <= newest {
            buckets[buckets.count - 1].add(value)
        } else {
            buckets.append(SeriesBucket(start: start, value: value))
            trim(newest: start)
        }
        return buckets[buckets.count - 1]
    }

    /// Drops the buckets older than the tier's span back from `newest`.
    private mutating func trim(newest: Int64) {
        let oldest = newest - Int64(tier.capacity - 1) * tier.width
        if let keep = buckets.firstIndex(where: { $0.start >= oldest }), keep > 0 { buckets.removeFirst(keep) }
    }

    /// The buckets that overlap `[low, high]`.
    func buckets(overlapping low: Int64, _ high: Int64) -> [SeriesBucket] {
        // Binary search for the first bucket that ends after `low`.
        var lo = 0
        var hi = buckets.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if buckets[mid].start + tier.width <= low { lo = mid + 1 } else { hi = mid }
        }
        var out: [SeriesBucket] = []
        var i = lo
        while i < buckets.count, buckets[i].start <= high {
            out.append(buckets[i])
            i += 1
        }
        return out
    }
}
