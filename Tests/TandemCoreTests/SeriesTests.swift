import Testing
@testable import TandemCore

/// Series: per-bucket min, max and last at several resolutions, bounded
/// whatever the publish rate (docs/series.md).
@Suite("Series")
struct SeriesTests {
    static let t0: Int64 = 1_800_000_000_000 // a round Unix time in ms

    @Test("values in one bucket keep its min, max, last and count, in every tier")
    func oneBucket() {
        var series = Series()
        for (i, v) in [3.0, -1, 7, 2].enumerated() { series.add(v, at: Self.t0 + Int64(i) * 10) }
        for ring in series.rings {
            #expect(ring.buckets.count == 1)
            #expect(ring.buckets[0] == SeriesBucket(start: ring.tier.bucketStart(Self.t0), min: -1, max: 7, last: 2, count: 4))
        }
    }

    @Test("40 days of publishing, then two minutes at 1 kHz, keep at most each tier's capacity: 8,340 buckets")
    func boundedAtAnyRate() {
        var series = Series()
        var t = Self.t0
        for _ in 0..<(40 * 86_400 / 30) { // a value every 30 s for 40 days
            series.add(1, at: t)
            t += 30_000
        }
        for _ in 0..<120_000 { // then 1 kHz for two minutes
            series.add(2, at: t)
            t += 1
        }
        let capacity = SeriesTier.standard.reduce(0) { $0 + $1.capacity }
        #expect(capacity == 8_340)
        #expect(series.bucketCount <= capacity)
        for ring in series.rings {
            #expect(ring.buckets.count <= ring.tier.capacity)
            // Oldest first, one per bucket width, within the tier's span of the newest.
            #expect(zip(ring.buckets, ring.buckets.dropFirst()).allSatisfy { $0.start < $1.start })
            #expect(ring.buckets.last!.start - ring.buckets.first!.start < ring.tier.span)
        }
        // The finest tier is full of the burst; the coarsest holds 30 days, not 40.
        #expect(series.rings[0].buckets.count == 600 && series.rings[0].buckets.allSatisfy { $0.min == 2 && $0.count == 100 })
        #expect(series.rings[4].buckets.count == 4_320)
    }

    @Test("the read-out takes the finest tier holding the span with no more buckets than asked")
    func finestThatFits() {
        var series = Series()
        for i in 0..<600 { series.add(Double(i), at: Self.t0 + Int64(i) * 100) } // a minute, a value every 0.1 s
        let fine = series.points(limit: 1_000)
        #expect(fine.width == 100 && fine.buckets.count == 600)
        let second = series.points(limit: 100)
        #expect(second.width == 1_000 && second.buckets.count == 60)
        #expect(second.buckets[0] == SeriesBucket(start: Self.t0, min: 0, max: 9, last: 9, count: 10))
        let window = series.points(from: Self.t0 + 10_000, to: Self.t0 + 19_999, limit: 100)
        #expect(window.width == 100 && window.buckets.count == 100)
        #expect(window.buckets.first!.start == Self.t0 + 10_000 && window.buckets.last!.start == Self.t0 + 19_900)
    }

    @Test("when no tier has so few buckets, neighbours of the coarsest merge, keeping min and max")
    func mergesToTheLimit() {
        var series = Series(tiers: [SeriesTier(width: 1_000, capacity: 100)])
        for i in 0..<100 { series.add(i == 41 ? 1_000 : Double(i), at: Self.t0 + Int64(i) * 1_000) }
        let out = series.points(limit: 7)
        #expect(out.buckets.count <= 7)
        #expect(out.width == 15_000)
        #expect(out.buckets.map(\.max).max() == 1_000)
        #expect(out.buckets.first!.min == 0 && out.buckets.last!.last == 99)
        #expect(out.buckets.reduce(0) { $0 + $1.count } == 100)
    }

    @Test("a span older than a fine tier keeps is read from a coarser tier that still holds it")
    func olderSpansComeFromCoarserTiers() {
        var series = Series()
        for i in 0..<7_200 { series.add(Double(i), at: Self.t0 + Int64(i) * 1_000) } // two hours at 1 Hz
        // The 0.1 s tier holds the last minute, the 1 s tier the last 15; the first minute is only in 10 s and coarser.
        let first = series.points(from: Self.t0, to: Self.t0 + 59_999, limit: 1_000)
        #expect(first.width == 10_000)
        #expect(first.buckets.first!.start == Self.t0 && first.buckets.count == 6)
        let last = series.points(from: Self.t0 + 7_140_000, limit: 1_000)
        #expect(last.width == 100 && last.buckets.count == 60)
    }

    @Test("a clock that steps back counts in the newest bucket; history is not rewritten")
    func clockStepsBack() {
        var series = Series(tiers: [SeriesTier(width: 1_000, capacity: 10)])
        series.add(1, at: Self.t0 + 5_000)
        series.add(2, at: Self.t0) // five seconds earlier
        #expect(series.rings[0].buckets == [SeriesBucket(start: Self.t0 + 5_000, min: 1, max: 2, last: 2, count: 2)])
    }

    @Test("restored buckets in any order come back sorted and trimmed to the tier")
    func restores() {
        let tier = SeriesTier(width: 1_000, capacity: 3)
        let stored = (0..<5).reversed().map { SeriesBucket(start: Self.t0 + Int64($0) * 1_000, min: 0, max: 1, last: 1, count: 1) }
        let series = Series(tiers: [tier], restoring: [stored])
        #expect(series.rings[0].buckets.map(\.start) == [2, 3, 4].map { Self.t0 + $0 * 1_000 })
    }

    @Test("a bucket's slot is its index modulo the capacity, so the buckets a ring holds never share one")
    func slots() {
        let tier = SeriesTier(width: 100, capacity: 600)
        var series = Series(tiers: [tier])
        for i in 0..<2_000 { series.add(0, at: Self.t0 + Int64(i) * 37) }
        let slots = series.rings[0].buckets.map { tier.slot(of: $0.start) }
        #expect(Set(slots).count == slots.count)
        #expect(slots.allSatisfy { (0..<600).contains($0) })
        #expect(tier.bucketStart(-1) == -100 && tier.slot(of: -100) == 599)
    }

    @Test("an empty series reads out nothing")
    func empty() {
        #expect(Series().points(limit: 10).buckets.isEmpty)
    }

    @Test("gauges keep a series unless their schema says no; sliders, snaps and toggles when it says yes; other kinds may not")
    func schemaField() throws {
        let room = try RoomSchema(validating: RoomDefinition(id: "r", controls: [
            ControlDefinition(id: "g", type: "gauge", min: 0, max: 1),
            ControlDefinition(id: "quiet", type: "gauge", min: 0, max: 1, series: false),
            ControlDefinition(id: "s", type: "slider", min: 0, max: 1, series: true),
            ControlDefinition(id: "plain", type: "slider", min: 0, max: 1),
            ControlDefinition(id: "t", type: "toggle", series: true),
        ]))
        #expect(room.controls.map(\.keepsSeries) == [true, false, true, false, true])
        #expect(room.controls[4].seriesValue(of: .toggle(on: true)) == 1)
        #expect(throws: SchemaError(control: "c", field: "series", problem: .notAllowed(type: "color"))) {
            try RoomSchema(validating: RoomDefinition(id: "r", controls: [ControlDefinition(id: "c", type: "color", series: true)]))
        }
    }
}
