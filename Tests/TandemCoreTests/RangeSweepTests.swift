import Testing
@testable import TandemCore

/// Exhaustive sweeps of the range math: every valid start state of a few small
/// configurations, both thumbs, every hundredth of a drag.
@Suite("Range math over every small configuration")
struct RangeSweepTests {
    static let configurations = [
        RangeMath(scale: 0...9, operable: 0...3, minGap: 1),   // the demo room's blanks
        RangeMath(scale: 0...10, operable: 2...9, minGap: 2),
        RangeMath(scale: -5...5, operable: -5...5, minGap: 0),
        RangeMath(scale: 0...20, operable: 5...15, minGap: 3),
        RangeMath(scale: 0...1, operable: 0...1, minGap: 1),   // no room to move at all
    ]

    /// Drags of every hundredth of the track, past both ends.
    static let drags: [Double] = (-120...120).map { Double($0) / 100 }

    /// Every integer state inside the scale that keeps the invariants.
    static func validStates(of math: RangeMath) -> [RangeState] {
        var states: [RangeState] = []
        for lower in math.scale {
            for upper in math.scale {
                let state = RangeState(lower: lower, upper: upper)
                if math.isValid(state) { states.append(state) }
            }
        }
        return states
    }

    @Test("every configuration swept has valid states to start from")
    func everyConfigurationHasStates() {
        #expect(Self.validStates(of: Self.configurations[0]).count == 6) // 0–1, 0–2, 0–3, 1–2, 1–3, 2–3
        for math in Self.configurations {
            #expect(!Self.validStates(of: math).isEmpty, "\(math)")
        }
    }

    @Test("a drag of either thumb by any dx leaves a valid state and the other thumb where it was")
    func dragKeepsInvariantsAndTheOtherThumb() {
        for math in Self.configurations {
            for start in Self.validStates(of: math) {
                for thumb in RangeThumb.allCases {
                    let other: RangeThumb = thumb == .lower ? .upper : .lower
                    for dx in Self.drags {
                        let result = math.dragging(thumb, by: dx, from: start)
                        #expect(math.isValid(result), "\(thumb) by \(dx) from \(start) in \(math) gave \(result)")
                        #expect(result[other] == start[other], "\(thumb) by \(dx) from \(start) in \(math) moved \(other)")
                    }
                }
            }
        }
    }

    @Test("a drag by zero leaves the state as it was")
    func zeroDragChangesNothing() {
        for math in Self.configurations {
            for start in Self.validStates(of: math) {
                for thumb in RangeThumb.allCases {
                    #expect(math.dragging(thumb, by: 0, from: start) == start, "\(thumb) from \(start) in \(math)")
                }
            }
        }
    }

    @Test("a longer drag never leaves the thumb further back")
    func dragIsMonotoneInDx() {
        for math in Self.configurations {
            for start in Self.validStates(of: math) {
                for thumb in RangeThumb.allCases {
                    var previous = Int.min
                    for dx in Self.drags {
                        let value = math.dragging(thumb, by: dx, from: start)[thumb]
                        #expect(value >= previous, "\(thumb) by \(dx) from \(start) in \(math) went back to \(value)")
                        previous = value
                    }
                }
            }
        }
    }

    @Test("a drag lands exactly on the scale value under the pointer whenever that value is allowed")
    func dragReachesEveryAllowedValue() {
        for math in Self.configurations {
            let span = Double(math.scale.upperBound - math.scale.lowerBound)
            for start in Self.validStates(of: math) {
                for thumb in RangeThumb.allCases {
                    for target in math.scale {
                        var wanted = start
                        wanted[thumb] = target
                        guard math.isValid(wanted) else { continue }
                        let dx = Double(target - start[thumb]) / span
                        #expect(math.dragging(thumb, by: dx, from: start) == wanted,
                                "\(thumb) by \(dx) from \(start) in \(math) should reach \(target)")
                    }
                }
            }
        }
    }

    @Test("stepping either thumb by any n, even Int.max or Int.min, keeps a valid state and stops at the limits")
    func steppingKeepsInvariants() {
        for math in Self.configurations {
            for start in Self.validStates(of: math) {
                for thumb in RangeThumb.allCases {
                    let other: RangeThumb = thumb == .lower ? .upper : .lower
                    for n in Array(-12...12) + [.max, .min, .max - 1, .min + 1] {
                        let result = math.stepping(thumb, by: n, from: start)
                        #expect(math.isValid(result), "\(thumb) by \(n) from \(start) in \(math) gave \(result)")
                        #expect(result[other] == start[other], "\(thumb) by \(n) from \(start) in \(math) moved \(other)")
                        if n > 0 { #expect(result[thumb] >= start[thumb], "\(thumb) by \(n) from \(start) in \(math)") }
                        if n < 0 { #expect(result[thumb] <= start[thumb], "\(thumb) by \(n) from \(start) in \(math)") }
                        if n == 0 { #expect(result == start, "\(thumb) by 0 from \(start) in \(math)") }
                        // Where the thumb may go exactly n units, it goes exactly there.
                        if (-12...12).contains(n) {
                            var wanted = start
                            wanted[thumb] = start[thumb] + n
                            if math.isValid(wanted) { #expect(result == wanted, "\(thumb) by \(n) from \(start) in \(math)") }
                        }
                    }
                    // Stepping by a huge amount lands at the thumb's limit.
                    let top = thumb == .upper ? math.operable.upperBound : start.upper - math.minGap
                    let bottom = thumb == .lower ? math.operable.lowerBound : start.lower + math.minGap
                    #expect(math.stepping(thumb, by: .max, from: start)[thumb] == top, "\(thumb) by Int.max from \(start) in \(math)")
                    #expect(math.stepping(thumb, by: .min, from: start)[thumb] == bottom, "\(thumb) by Int.min from \(start) in \(math)")
                }
            }
        }
    }
}
