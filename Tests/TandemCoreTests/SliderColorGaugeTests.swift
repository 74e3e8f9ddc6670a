import Testing
@testable import TandemCore

/// Sweeps and edge cases of the slider, colour and gauge math.
@Suite("Slider, colour and gauge math")
struct SliderColorGaugeTests {
    static let sliders = [
        SliderMath(min: 0, max: 1, step: nil),
        SliderMath(min: 0, max: 1, step: 0.01),
        SliderMath(min: -1, max: 1, step: nil),
        SliderMath(min: -5, max: 5, step: 0.5),
        SliderMath(min: -40, max: -10, step: 3),
        SliderMath(min: 0, max: 170, step: 10),
        SliderMath(min: 0, max: 1, step: 1.0 / 255),
        SliderMath(min: 0, max: 10, step: 5),
        SliderMath(min: -0.3, max: 0.1, step: 0.1), // min + (max - min) is not max in binary
        SliderMath(min: 0, max: 4.35, step: 0.05),  // 4.35/0.05 is 86.99999999999999 in binary
    ]

    /// Every thousandth of the track, and a tenth beyond either end.
    static let fractions: [Double] = (-100...1100).map { Double($0) / 1000 }

    /// Whether `value` is `min + k*step` for a whole `k` (to 1e-9 of a step).
    static func isOnGrid(_ value: Double, of math: SliderMath) -> Bool {
        guard let step = math.step else { return true }
        let k = (value - math.min) / step
        return abs(k - k.rounded()) <= 1e-9 * Swift.max(1, abs(k))
    }

    // MARK: slider

    @Test("a slider's value at a fraction is within bounds, on the grid, and never lower further along")
    func valueAtIsMonotoneBoundedAndOnGrid() {
        for math in Self.sliders {
            var previous = -Double.infinity
            for f in Self.fractions {
                let value = math.value(at: f)
                #expect(value >= math.min && value <= math.max, "f \(f) on \(math) gave \(value)")
                #expect(Self.isOnGrid(value, of: math), "f \(f) on \(math) gave \(value)")
                #expect(value >= previous, "f \(f) on \(math) went back from \(previous) to \(value)")
                previous = value
            }
            #expect(math.value(at: 0) == math.min, "\(math)")
            #expect(math.value(at: 1) == math.max, "\(math)")
            #expect(math.value(at: -0.5) == math.min, "\(math)")
            #expect(math.value(at: 1.5) == math.max, "\(math)")
            #expect(math.value(at: .nan) == math.min, "\(math)")
        }
    }

    @Test("a slider's value at a fraction is the grid value nearest min + f*(max-min)")
    func valueAtIsTheNearestGridValue() {
        for math in Self.sliders {
            for f in Self.fractions where (0...1).contains(f) {
                let exact = math.min + f * math.span
                let tolerance = (math.step ?? 0) / 2 + 1e-9
                #expect(abs(math.value(at: f) - exact) <= tolerance, "f \(f) on \(math) gave \(math.value(at: f))")
            }
        }
    }

    @Test("a continuous slider's value maps back to the fraction it came from")
    func positionOfValueAtRoundTrips() {
        for math in Self.sliders {
            for f in Self.fractions where (0...1).contains(f) {
                let value = math.value(at: f)
                let position = math.position(of: value)
                if math.step == nil {
                    #expect(abs(position - f) <= 1e-9, "f \(f) on \(math) came back as \(position)")
                } else {
                    // On a grid the position is that of the grid value, which gives the same value again.
                    #expect(math.value(at: position) == value, "f \(f) on \(math): \(value) at \(position)")
                }
            }
        }
    }

    @Test("a set value is clamped into the bounds: 1.5 becomes max and -0.2 becomes min")
    func settingClamps() {
        for math in Self.sliders {
            #expect(math.setting(math.max + 0.5 * math.span) == math.max, "\(math)")
            #expect(math.setting(math.min - 0.2 * math.span) == math.min, "\(math)")
            #expect(math.setting(.greatestFiniteMagnitude) == math.max, "\(math)")
            #expect(math.setting(-.greatestFiniteMagnitude) == math.min, "\(math)")
        }
        let unit = SliderMath(min: 0, max: 1)
        #expect(unit.setting(1.5) == 1)
        #expect(unit.setting(-0.2) == 0)
    }

    @Test("a set value lands on the grid value nearest it")
    func settingLandsOnTheGrid() {
        for math in Self.sliders {
            for k in -200...1200 {
                let wanted = math.min + math.span * Double(k) / 1000
                let stored = math.setting(wanted)
                let clamped = Swift.min(Swift.max(wanted, math.min), math.max)
                #expect(stored >= math.min && stored <= math.max, "set \(wanted) on \(math) stored \(stored)")
                #expect(Self.isOnGrid(stored, of: math), "set \(wanted) on \(math) stored \(stored)")
                #expect(abs(stored - clamped) <= (math.step ?? 0) / 2 + 1e-9, "set \(wanted) on \(math) stored \(stored)")
                #expect(math.isValid(stored), "set \(wanted) on \(math) stored \(stored)")
            }
        }
    }

    @Test("stepping a slider moves by whole steps and stops at either end, even by Int.max or Int.min")
    func steppingStopsAtTheEnds() throws {
        for math in Self.sliders {
            let step = math.step ?? math.span / 100
            #expect(math.stepping(math.max, by: 1) == math.max, "\(math)")
            #expect(math.stepping(math.min, by: -1) == math.min, "\(math)")
            #expect(math.stepping(math.min, by: .max) == math.max, "\(math)")
            #expect(math.stepping(math.max, by: .min) == math.min, "\(math)")
            #expect(math.stepping(math.min, by: 0) == math.min, "\(math)")
            #expect(abs(math.stepping(math.min, by: 1) - (math.min + step)) <= 1e-9, "\(math)")
            #expect(abs(math.stepping(math.max, by: -2) - (math.max - 2 * step)) <= 1e-9, "\(math)")
            #expect(math.stepping(math.max - step / 4, by: 1) == math.max, "\(math)")
        }
    }

    @Test("stepping a slider without a step moves a hundredth of the span")
    func steppingWithoutAStepMovesAHundredth() {
        let math = SliderMath(min: -1, max: 3)
        #expect(abs(math.stepping(0, by: 1) - 0.04) <= 1e-12)
        #expect(abs(math.stepping(0, by: -3) - (-0.12)) <= 1e-12)
        #expect(abs(math.stepping(1.001, by: 10) - 1.401) <= 1e-12)
        #expect(math.stepping(2.99, by: 1) == 3)
        #expect(math.stepping(-0.99, by: -1) == -1)
    }

    @Test("stepping a slider on a grid from an off-grid value moves from the nearest grid value")
    func steppingFromOffGridSnapsFirst() {
        let math = SliderMath(min: 0, max: 170, step: 10)
        #expect(math.stepping(44, by: 1) == 50)
        #expect(math.stepping(46, by: -1) == 40)
        #expect(math.stepping(500, by: -1) == 160)
    }

    // MARK: colour

    private static func twoDigits(_ byte: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[byte / 16], digits[byte % 16]])
    }

    @Test("every byte level b/255 formats as its two upper-case hex digits and parses back")
    func everyByteRoundTrips() throws {
        for b in 0...255 {
            let level = Double(b) / 255
            let other = Double(255 - b) / 255
            let hex = ColorMath.hex(RGB(red: level, green: other, blue: level))
            let expected = "#" + Self.twoDigits(b) + Self.twoDigits(255 - b) + Self.twoDigits(b)
            #expect(hex == expected, "byte \(b)")
            #expect(RGB(red: level, green: other, blue: level).hex == expected, "byte \(b)")
            let parsed = try #require(ColorMath.parseHex(hex), "\(hex)")
            #expect(parsed == RGB(red: level, green: other, blue: level), "\(hex)")
            #expect(ColorMath.parseHex(hex.lowercased()) == parsed, "\(hex.lowercased())")
        }
    }

    @Test("hex rounds each channel half away from zero and clamps it into [0, 1]")
    func hexRoundsAndClamps() {
        #expect(ColorMath.hex(RGB(red: 0.5, green: 0.5 / 255, blue: 1.5 / 255)) == "#800102")
        #expect(ColorMath.hex(RGB(red: 1.5, green: -0.2, blue: .nan)) == "#FF0000")
        #expect(ColorMath.hex(RGB(red: .infinity, green: -.infinity, blue: 1)) == "#FF00FF")
    }

    @Test("parsing hex takes mixed case and refuses anything but #RRGGBB")
    func parseHexRefusesOtherShapes() throws {
        let mixed = try #require(ColorMath.parseHex("#aBcDeF"))
        #expect(mixed == RGB(red: 171.0 / 255, green: 205.0 / 255, blue: 239.0 / 255))
        for text in ["#12345", "123456", "#GG0000", "#1234567", "", "#", "#FFF", " #123456", "#123456 ", "#12 456", "##12345", "#-12345", "#+12345"] {
            #expect(ColorMath.parseHex(text) == nil, "'\(text)'")
        }
    }

    @Test("a typed number is read only when it is a finite decimal")
    func parseNumberAcceptsOnlyFiniteDecimals() {
        let accepted: [(String, Double)] = [
            ("0.75", 0.75), (" 0.5 ", 0.5), ("1e-1", 0.1), ("-0.2", -0.2), ("1", 1), ("\t0.25\t", 0.25), (".5", 0.5), ("+0.5", 0.5),
        ]
        for (text, value) in accepted {
            #expect(ColorMath.parseNumber(text) == value, "'\(text)'")
        }
        for text in ["abc", "", " ", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "0x1p3", "1,5", "1e999", "1.2.3", "0.5abc", "- 1"] {
            #expect(ColorMath.parseNumber(text) == nil, "'\(text)'")
        }
    }

    @Test("typed text clamps a channel into [0, 1], snaps it to the step, and ignores junk")
    func channelFromText() {
        #expect(ColorMath.channel(fromText: "1.5", current: 0.3) == 1)
        #expect(ColorMath.channel(fromText: "-0.2", current: 0.3) == 0)
        #expect(ColorMath.channel(fromText: "0.75", current: 0.3) == 0.75)
        #expect(ColorMath.channel(fromText: "junk", current: 0.3) == 0.3)
        #expect(ColorMath.channel(fromText: "0.5", current: 0.3, step: 1.0 / 255) == 128.0 / 255)
        #expect(ColorMath.channel(fromText: "nan", current: 0.3, step: 1.0 / 255) == 0.3)
    }

    // MARK: gauge

    @Test("a gauge's fraction clamps at both ends and is exact in between")
    func gaugeFractionClampsAndIsExact() {
        for gauge in [GaugeMath(min: 0, max: 170), GaugeMath(min: -40, max: 60), GaugeMath(min: 0.5, max: 0.75)] {
            let span = gauge.max - gauge.min
            #expect(gauge.fraction(of: gauge.min) == 0, "\(gauge)")
            #expect(gauge.fraction(of: gauge.max) == 1, "\(gauge)")
            #expect(gauge.fraction(of: gauge.min - span) == 0, "\(gauge)")
            #expect(gauge.fraction(of: gauge.max + span) == 1, "\(gauge)")
            #expect(gauge.fraction(of: -.greatestFiniteMagnitude) == 0, "\(gauge)")
            #expect(gauge.fraction(of: .greatestFiniteMagnitude) == 1, "\(gauge)")
            for k in 0...100 {
                let value = gauge.min + span * Double(k) / 100
                #expect(abs(gauge.fraction(of: value) - Double(k) / 100) <= 1e-12, "\(value) on \(gauge)")
            }
        }
        #expect(GaugeMath(min: 0, max: 170).fraction(of: 67) == 67.0 / 170)
        #expect(GaugeMath(min: 0, max: 170).fraction(of: -5) == 0)
        #expect(GaugeMath(min: 0, max: 170).fraction(of: 171) == 1)
    }
}
