import Testing
import TandemBench
import TandemTestSupport

@Suite("The latency histogram")
struct LatencyHistogramTests {
    /// The sample at rank ceil(p/100 * n) (at least 1) of sorted samples: what `percentile` estimates.
    static func exact(_ sorted: [UInt64], _ p: Double) -> UInt64 {
        if p <= 0 { return sorted[0] }
        let rank = Swift.max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
        return sorted[Swift.min(rank, sorted.count) - 1]
    }

    static func relativeError(_ estimate: UInt64, _ truth: UInt64) -> Double {
        let diff = estimate > truth ? estimate - truth : truth - estimate
        return truth == 0 ? Double(diff) : Double(diff) / Double(truth)
    }

    @Test("an empty histogram answers zeros")
    func empty() {
        let h = LatencyHistogram()
        #expect(h.count == 0 && h.min == 0 && h.max == 0 && h.mean == 0)
        #expect(h.percentile(50) == 0)
        #expect(h.isEmpty)
    }

    @Test("small values are kept exactly, and percentiles pick the sample at rank ceil(p·n)")
    func exactSmallCases() {
        var h = LatencyHistogram()
        for v: UInt64 in [5, 1, 3, 2, 4] { h.record(v) }
        #expect(h.count == 5)
        #expect(h.min == 1 && h.max == 5)
        #expect(h.mean == 3)
        #expect(h.percentile(0) == 1)
        #expect(h.percentile(20) == 1)
        #expect(h.percentile(21) == 2)
        #expect(h.percentile(50) == 3)
        #expect(h.percentile(80) == 4)
        #expect(h.percentile(100) == 5)
        // A single sample is every percentile.
        var one = LatencyHistogram()
        one.record(1_234_567)
        for p in [0.0, 1, 50, 99.9, 100] { #expect(one.percentile(p) == 1_234_567) }
    }

    @Test("out-of-range percentiles are clamped to 0...100")
    func clampedPercentiles() {
        var h = LatencyHistogram()
        for v: UInt64 in 1...100 { h.record(v) }
        #expect(h.percentile(-5) == 1)
        #expect(h.percentile(250) == 100)
        #expect(h.percentile(.nan) == 1)
    }

    @Test("percentiles of 1...1,000,000 are within 0.1 %, and min, max and mean are exact")
    func millionWithinTolerance() {
        var h = LatencyHistogram()
        for v: UInt64 in 1...1_000_000 { h.record(v) }
        #expect(h.count == 1_000_000)
        #expect(h.min == 1)
        #expect(h.max == 1_000_000)
        #expect(h.mean == 500_000.5)
        for p in [0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 99.999] {
            let truth = UInt64((p / 100 * 1_000_000).rounded(.up))
            let estimate = h.percentile(p)
            #expect(Self.relativeError(estimate, truth) <= 0.001, "p\(p): \(estimate) for \(truth)")
        }
    }

    @Test("large latencies keep their relative precision: seconds and minutes")
    func largeValues() {
        var h = LatencyHistogram()
        let values: [UInt64] = [999_999_937, 12_345_678_901, 59_000_000_000, 3_599_999_999_999]
        for v in values {
            h.reset()
            h.record(v)
            h.record(v + 1)
            #expect(Self.relativeError(h.percentile(50), v) <= 0.001)
        }
    }

    @Test("values beyond the trackable range are counted at its top, with max still exact")
    func clampedValues() {
        var h = LatencyHistogram(highestTrackable: 1_000_000_000)
        h.record(5_000_000_000)
        h.record(10)
        #expect(h.clampedCount == 1)
        #expect(h.max == 5_000_000_000)
        #expect(h.percentile(100) == 5_000_000_000)
        #expect(Self.relativeError(h.percentile(99), 1_000_000_000) <= 0.001)
    }

    @Test("merging equals recording both sets of samples into one histogram")
    func mergeEqualsRecordingBoth() {
        var rng = SplitMix64(seed: 7)
        var a = LatencyHistogram(), b = LatencyHistogram(), both = LatencyHistogram()
        for k in 0..<20_000 {
            let v = UInt64.random(in: 1...50_000_000, using: &rng)
            if k % 3 == 0 { a.record(v) } else { b.record(v) }
            both.record(v)
        }
        var merged = a
        merged.merge(b)
        #expect(merged.count == both.count)
        #expect(merged.min == both.min && merged.max == both.max)
        #expect(merged.nonEmptyBuckets == both.nonEmptyBuckets)
        for p in [1.0, 50, 90, 99, 99.9] { #expect(merged.percentile(p) == both.percentile(p)) }
        #expect((merged.mean - both.mean).magnitude <= 1e-6 * both.mean)
        // Merging an empty histogram changes nothing.
        merged.merge(LatencyHistogram())
        #expect(merged.min == both.min && merged.count == both.count)
    }

    @Test("memory does not grow with the number of samples")
    func constantMemory() {
        var h = LatencyHistogram()
        let buckets = h.bucketCount
        #expect(buckets == LatencyHistogram().bucketCount)
        #expect(buckets < 40_000)
        var rng = SplitMix64(seed: 1)
        for _ in 0..<500_000 { h.record(UInt64.random(in: 0...3_600_000_000_000, using: &rng)) }
        #expect(h.bucketCount == buckets)
        h.reset()
        #expect(h.bucketCount == buckets && h.count == 0 && h.max == 0 && h.nonEmptyBuckets.isEmpty)
    }

    @Test("a seeded log-normal-ish distribution matches sorted-array percentiles within 0.1 %")
    func seededDistribution() {
        var rng = SplitMix64(seed: 0xBE7C4)
        var h = LatencyHistogram()
        var samples: [UInt64] = []
        for _ in 0..<200_000 {
            // A long tail: a base of 0.2–2 ms times an occasional factor up to 1000.
            let base = Double.random(in: 200_000...2_000_000, using: &rng)
            let tail = Double.random(in: 0..<1, using: &rng) < 0.01 ? Double.random(in: 1...1000, using: &rng) : 1
            let v = UInt64(base * tail)
            samples.append(v)
            h.record(v)
        }
        samples.sort()
        #expect(h.min == samples.first && h.max == samples.last)
        for p in [0.0, 1, 10, 50, 90, 99, 99.5, 99.9, 99.99, 100] {
            let truth = Self.exact(samples, p)
            let estimate = h.percentile(p)
            #expect(Self.relativeError(estimate, truth) <= 0.001, "p\(p): \(estimate) for \(truth)")
        }
    }

    @Test("fewer significant digits mean fewer buckets and a looser, still bounded, error")
    func precisionSetting() {
        var h = LatencyHistogram(significantDigits: 2)
        #expect(h.bucketCount < LatencyHistogram().bucketCount)
        for v: UInt64 in 1...100_000 { h.record(v * 37) }
        let truth: UInt64 = 50_000 * 37
        #expect(Self.relativeError(h.percentile(50), truth) <= 0.01)
    }
}
