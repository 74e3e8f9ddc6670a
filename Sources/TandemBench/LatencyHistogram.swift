/// Nanosecond latencies in log-linear buckets, HDR-style: a bounded relative
/// error in constant memory, however many samples are recorded.
///
/// With `significantDigits` d the histogram keeps `2^b` sub-buckets, the
/// smallest power of two at least `2 * 10^d` (2,048 for d = 3). Values below
/// `2^b` have a bucket each, so they are exact. Above that, a value whose top
/// bit is bit h lands in a bucket `2^(h-b+1)` wide whose lowest value is at
/// least `2^(b-1)` bucket widths, so a bucket is never wider than
/// `1/2^(b-1)` (1/1,024 for d = 3) of any value in it. `percentile` answers
/// the middle of the bucket holding the sample at that rank, which is within
/// half that, 0.05 %, of the true sample; it never leaves `[min, max]`.
///
/// Values above `highestTrackable` (default one hour) are counted in its
/// bucket and reported in `clampedCount`; `max`, `min` and `mean` stay exact.
/// Counts are `UInt64`s: 33,421 buckets, 261 KiB, for d = 3 and one hour.
public struct LatencyHistogram: Sendable, Hashable {
    /// The precision asked for, 1...5 significant decimal digits.
    public let significantDigits: Int
    /// The largest value kept to the histogram's precision.
    public let highestTrackable: UInt64
    /// log2 of the number of sub-buckets (11 for 3 digits).
    private let subBucketBits: Int
    private var counts: [UInt64]

    /// How many values were recorded.
    public private(set) var count: UInt64 = 0
    /// The smallest value recorded, exactly; 0 when empty.
    public var min: UInt64 { count == 0 ? 0 : minValue }
    /// The largest value recorded, exactly; 0 when empty.
    public private(set) var max: UInt64 = 0
    /// How many recorded values were above `highestTrackable`.
    public private(set) var clampedCount: UInt64 = 0
    private var minValue: UInt64 = .max
    private var sum: Double = 0

    /// A histogram keeping `significantDigits` (1...5) digits up to `highestTrackable` nanoseconds.
    public init(significantDigits: Int = 3, highestTrackable: UInt64 = 3_600_000_000_000) {
        precondition((1...5).contains(significantDigits), "significant digits must be 1...5")
        var bits = 1
        var needed: UInt64 = 2
        for _ in 0..<significantDigits { needed *= 10 }
        while (UInt64(1) << bits) < needed { bits += 1 }
        self.significantDigits = significantDigits
        self.subBucketBits = bits
        let highest = Swift.max(highestTrackable, UInt64(1) << bits)
        self.highestTrackable = highest
        counts = Array(repeating: 0, count: Self.index(of: highest, bits: bits) + 1)
    }

    /// The number of buckets: fixed at creation, independent of `count`.
    public var bucketCount: Int { counts.count }

    /// The mean of the recorded values (exact up to `Double` rounding); 0 when empty.
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    /// Whether nothing has been recorded.
    public var isEmpty: Bool { count == 0 }

    /// Records one latency in nanoseconds.
    public mutating func record(_ ns: UInt64) {
        record(ns, times: 1)
    }

    /// Records the same latency `times` times.
    public mutating func record(_ ns: UInt64, times: UInt64) {
        guard times > 0 else { return }
        let kept = Swift.min(ns, highestTrackable)
        if kept != ns { clampedCount += times }
        counts[Self.index(of: kept, bits: subBucketBits)] += times
        count += times
        sum += Double(ns) * Double(times)
        if ns < minValue { minValue = ns }
        if ns > max { max = ns }
    }

    /// A value within the histogram's precision of the sample at rank
    /// `ceil(p/100 * count)` (at least 1) of the sorted samples; `p` is clamped
    /// to 0...100, so 0 answers `min` and 100 answers `max`. 0 when empty.
    public func percentile(_ p: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let q = p.isNaN ? 0 : Swift.min(Swift.max(p, 0), 100)
        if q == 0 { return min }
        if q == 100 { return max }
        var rank = UInt64((q / 100 * Double(count)).rounded(.up))
        rank = Swift.min(Swift.max(rank, 1), count)
        var seen: UInt64 = 0
        for (index, n) in counts.enumerated() where n > 0 {
            seen += n
            if seen >= rank {
                let (low, high) = bounds(ofBucket: index)
                let middle = low + (high - low) / 2
                return Swift.min(Swift.max(middle, min), max)
            }
        }
        return max
    }

    /// Adds every sample of `other`, which must have the same precision and range.
    public mutating func merge(_ other: LatencyHistogram) {
        precondition(other.subBucketBits == subBucketBits && other.counts.count == counts.count,
                     "merging histograms of different shapes")
        guard other.count > 0 else { return }
        for (index, n) in other.counts.enumerated() where n > 0 {
            counts[index] += n
        }
        count += other.count
        sum += other.sum
        clampedCount += other.clampedCount
        minValue = Swift.min(minValue, other.minValue)
        max = Swift.max(max, other.max)
    }

    /// Forgets every sample, keeping the shape (and the memory).
    public mutating func reset() {
        for index in counts.indices { counts[index] = 0 }
        count = 0
        sum = 0
        clampedCount = 0
        minValue = .max
        max = 0
    }

    /// The buckets holding samples, lowest first, with the values each stands for.
    public var nonEmptyBuckets: [HistogramBucket] {
        var out: [HistogramBucket] = []
        for (index, n) in counts.enumerated() where n > 0 {
            let (low, high) = bounds(ofBucket: index)
            out.append(HistogramBucket(lowest: low, highest: high, count: n))
        }
        return out
    }

    /// The lowest and highest value of bucket `index`.
    private func bounds(ofBucket index: Int) -> (UInt64, UInt64) {
        let full = 1 << subBucketBits
        if index < full { return (UInt64(index), UInt64(index)) }
        let half = full >> 1
        let shift = (index - full) / half + 1
        let sub = UInt64((index - full) % half + half)
        let low = sub << UInt64(shift)
        return (low, low + (UInt64(1) << UInt64(shift)) - 1)
    }

    /// The bucket of `value`: itself below `2^bits`, else `2^bits` plus
    /// `2^(bits-1)` buckets per doubling above it.
    private static func index(of value: UInt64, bits: Int) -> Int {
        let full = UInt64(1) << UInt64(bits)
        if value < full { return Int(value) }
        let top = 63 - value.leadingZeroBitCount
        let shift = top - bits + 1
        let half = Int(full >> 1)
        let sub = Int(value >> UInt64(shift)) - half
        return Int(full) + (shift - 1) * half + sub
    }
}

/// A bucket of a `LatencyHistogram`: every value in `lowest...highest` counts here.
public struct HistogramBucket: Sendable, Hashable {
    public var lowest: UInt64
    public var highest: UInt64
    public var count: UInt64

    public init(lowest: UInt64, highest: UInt64, count: UInt64) {
        self.lowest = lowest
        self.highest = highest
        self.count = count
    }
}
