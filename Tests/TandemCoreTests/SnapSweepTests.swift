import Testing
@testable import TandemCore

/// Exhaustive sweeps of the snap math over every small count, both layouts,
/// and every thousandth of the track.
@Suite("Snap math over every small configuration")
struct SnapSweepTests {
    /// The fractions swept: every thousandth of the track.
    static let fractions: [Double] = (0...1000).map { Double($0) / 1000 }

    /// Value lists of `count` entries to sweep with `layout`: evenly spaced for
    /// both layouts, and for proportional also squares (crowded at the low end)
    /// and a list with one big gap.
    static func valueLists(count: Int, layout: SnapLayout) -> [[Double]] {
        let even = (0..<count).map { Double(20 + 20 * $0) }
        guard layout == .proportional else { return [even] }
        let squares = (1...count).map { Double($0 * $0) }
        let gapped = (0..<count).map { $0 < count / 2 ? Double($0) : Double(100 + $0) }
        let negative = (0..<count).map { Double($0 * 3) - 7.5 }
        return [even, squares, gapped, negative]
    }

    static func everyConfiguration(_ body: (_ values: [Double], _ layout: SnapLayout) throws -> Void) rethrows {
        for count in 1...12 {
            for layout in SnapLayout.allCases {
                for values in valueLists(count: count, layout: layout) {
                    try body(values, layout)
                }
            }
        }
    }

    @Test("selects an index inside the values at every fraction")
    func indexIsAlwaysInRange() {
        Self.everyConfiguration { values, layout in
            for f in Self.fractions + [-1, -0.001, 1.001, 2, .infinity, -.infinity, .nan] {
                let index = SnapMath.index(at: f, values: values, layout: layout)
                #expect((0..<values.count).contains(index), "f \(f) over \(values) (\(layout)) gave \(index)")
            }
        }
    }

    @Test("never selects a lower index further along the track")
    func indexIsMonotoneInFraction() {
        Self.everyConfiguration { values, layout in
            var previous = 0
            for f in Self.fractions {
                let index = SnapMath.index(at: f, values: values, layout: layout)
                #expect(index >= previous, "f \(f) over \(values) (\(layout)) went back from \(previous) to \(index)")
                previous = index
            }
        }
    }

    @Test("selects a value whose position is as near the pointer as any other")
    func indexIsTheNearestPosition() {
        Self.everyConfiguration { values, layout in
            let positions = values.indices.map { SnapMath.position(of: $0, values: values, layout: layout) }
            for f in Self.fractions {
                let index = SnapMath.index(at: f, values: values, layout: layout)
                let chosen = abs(positions[index] - f)
                let nearest = positions.map { abs($0 - f) }.min()!
                // A hair of tolerance: a tie computed two ways may differ in the last bit.
                #expect(chosen <= nearest + 1e-12, "f \(f) over \(values) (\(layout)) gave \(index) at \(positions[index])")
            }
        }
    }

    @Test("selects the index whose position it is asked about")
    func positionMapsBackToItsIndex() {
        Self.everyConfiguration { values, layout in
            for index in values.indices {
                let position = SnapMath.position(of: index, values: values, layout: layout)
                #expect((0...1).contains(position), "position \(position) of \(index) over \(values) (\(layout))")
                #expect(SnapMath.index(at: position, values: values, layout: layout) == index,
                        "position \(position) of \(index) over \(values) (\(layout))")
            }
        }
    }

    @Test("selects the first value at the low end and the last at the high end")
    func endsSelectTheEndValues() {
        Self.everyConfiguration { values, layout in
            let last = values.count - 1
            #expect(SnapMath.index(at: 0, values: values, layout: layout) == 0, "\(values) (\(layout))")
            #expect(SnapMath.index(at: -0.5, values: values, layout: layout) == 0, "\(values) (\(layout))")
            #expect(SnapMath.index(at: 1, values: values, layout: layout) == last, "\(values) (\(layout))")
            #expect(SnapMath.index(at: 1.5, values: values, layout: layout) == last, "\(values) (\(layout))")
            if values.count > 1 {
                #expect(SnapMath.position(of: 0, values: values, layout: layout) == 0, "\(values) (\(layout))")
                #expect(SnapMath.position(of: last, values: values, layout: layout) == 1, "\(values) (\(layout))")
            }
        }
    }

    @Test("puts a single value in the middle of the track and always selects it")
    func singleValueSitsInTheMiddle() {
        for layout in SnapLayout.allCases {
            #expect(SnapMath.position(of: 0, values: [7], layout: layout) == 0.5)
            #expect(SnapMath.position(of: 0, count: 1) == 0.5)
            for f in Self.fractions {
                #expect(SnapMath.index(at: f, values: [7], layout: layout) == 0)
            }
        }
    }

    @Test("finds each index again from the pixel x of its centre on tracks of several sizes")
    func pixelHelpersRoundTrip() {
        let tracks = [
            TrackGeometry(width: 336, inset: 12), TrackGeometry(width: 336, inset: 0),
            TrackGeometry(width: 100, inset: 22.5), TrackGeometry(width: 44.5, inset: 10),
            TrackGeometry(width: 1920, inset: 30), TrackGeometry(width: 25, inset: 12),
        ]
        for geometry in tracks {
            for count in 1...12 {
                var previousX = -Double.infinity
                for index in 0..<count {
                    let x = SnapMath.x(ofIndex: index, geometry: geometry, count: count)
                    #expect(x >= geometry.inset && x <= geometry.width - geometry.inset,
                            "index \(index) of \(count) at x \(x) on \(geometry)")
                    #expect(x > previousX, "index \(index) of \(count) at x \(x) on \(geometry)")
                    previousX = x
                    #expect(SnapMath.index(atX: x, geometry: geometry, count: count) == index,
                            "index \(index) of \(count) at x \(x) on \(geometry)")
                }
            }
        }
    }

    @Test("selects the first value anywhere on a track with no usable width")
    func trackNarrowerThanItsThumbHasOnePosition() {
        let geometry = TrackGeometry(width: 20, inset: 12)
        for count in 1...12 {
            for x in stride(from: -10.0, through: 30, by: 0.5) {
                #expect(SnapMath.index(atX: x, geometry: geometry, count: count) == 0, "x \(x), count \(count)")
            }
        }
    }

    @Test("pixel pointers past either end of the track select the end values")
    func pixelPointersPastTheEndsClamp() {
        let geometry = TrackGeometry(width: 336, inset: 12)
        for count in 2...12 {
            for x in [-1000.0, -10, 0, 11.99] {
                #expect(SnapMath.index(atX: x, geometry: geometry, count: count) == 0, "x \(x), count \(count)")
            }
            for x in [324.01, 336, 400, 1e9] {
                #expect(SnapMath.index(atX: x, geometry: geometry, count: count) == count - 1, "x \(x), count \(count)")
            }
        }
    }

    @Test("stepping moves by n places and stops at either end, even by Int.max or Int.min")
    func steppingStopsAtTheEnds() {
        for count in 1...12 {
            for index in 0..<count {
                for n in -15...15 {
                    let expected = Swift.min(Swift.max(index + n, 0), count - 1)
                    #expect(SnapMath.stepped(index, by: n, count: count) == expected,
                            "index \(index) of \(count) by \(n)")
                }
                #expect(SnapMath.stepped(index, by: .max, count: count) == count - 1, "index \(index) of \(count) by Int.max")
                #expect(SnapMath.stepped(index, by: .min, count: count) == 0, "index \(index) of \(count) by Int.min")
                #expect(SnapMath.stepped(index, by: .max - 1, count: count) == count - 1, "index \(index) of \(count) by Int.max - 1")
                #expect(SnapMath.stepped(index, by: .min + 1, count: count) == 0, "index \(index) of \(count) by Int.min + 1")
            }
        }
    }
}
