/// One resolution of a series: buckets `width` milliseconds wide, the newest
/// `capacity` of them kept. A series keeps several, finest first, so that a
/// chart of the last minute and one of the last month both come from a
/// bounded number of buckets, whatever the publish rate.
public struct SeriesTier: Sendable, Hashable {
    /// Milliseconds per bucket.
    public let width: Int64
    /// Buckets kept at most.
    public let capacity: Int

    public init(width: Int64, capacity: Int) {
        precondition(width > 0 && capacity > 0, "a tier needs a positive width and capacity")
        self.width = width
        self.capacity = capacity
    }

    /// The time the tier covers when full.
    public var span: Int64 { width * Int64(capacity) }

    /// Tandem's tiers: a minute at 0.1 s, 15 minutes at 1 s, 3 hours at 10 s,
    /// a day at 1 min, 30 days at 10 min: 8,340 buckets per control at most.
    public static let standard: [SeriesTier] = [
        SeriesTier(width: 100, capacity: 600),
        SeriesTier(width: 1_000, capacity: 900),
        SeriesTier(width: 10_000, capacity: 1_080),
        SeriesTier(width: 60_000, capacity: 1_440),
        SeriesTier(width: 600_000, capacity: 4_320),
    ]

    /// The start of the bucket `time` falls in (floored, also before 1970).
    public func bucketStart(_ time: Int64) -> Int64 {
        let q = time / width
        return (time % width < 0 ? q - 1 : q) * width
    }

    /// Where a bucket starting at `start` is kept in a store of `capacity`
    /// places: the buckets a ring holds at once never share one.
    public func slot(of start: Int64) -> Int {
        let index = bucketStart(start) / width
        let c = Int64(capacity)
        return Int(((index % c) + c) % c)
    }
}

/// What was published in one bucket: `[start, start + width)` of its tier.
public struct SeriesBucket: Sendable, Hashable {
    /// Unix time in milliseconds.
    public var start: Int64
    public var min: Double
    public var max: Double
    /// The latest value published in it.
    public var last: Double
    /// How many values went into it.
    public var count: Int

    public init(start: Int64, min: Double, max: Double, last: Double, count: Int) {
        self.start = start
        self.min = min
        self.max = max
        self.last = last
        self.count = count
    }

    init(start: Int64, value: Double) {
        self.init(start: start, min: value, max: value, last: value, count: 1)
    }

    mutating func add(_ value: Double) {
        min = Swift.min(min, value)
        max = Swift.max(max, value)
        last = value
        count += 1
    }

    /// This bucket and the later `other` as one (a coarser read-out).
    mutating func absorb(_ other: SeriesBucket) {
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        last = other.last
        count += other.count
    }
}
