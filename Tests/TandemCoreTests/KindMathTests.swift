import Testing
@testable import TandemCore

/// The math under the new kinds: `ln` and `exp` in plain Swift, significant
/// digits, and log sliders' round trips.
@Suite("The math of log sliders, digits and pads")
struct KindMathTests {
    @Test("ln and exp agree with known values to a few units in the last place")
    func elementary() {
        let cases: [(Double, Double)] = [(1, 0), (2, 0.6931471805599453), (10, 2.302585092994046), (0.5, -0.6931471805599453),
                                         (1000, 6.907755278982137), (1e-300, -690.7755278982137), (2.718281828459045, 1)]
        for (x, ln) in cases {
            #expect(abs(Elementary.log(x) - ln) <= 4 * ln.ulp, "ln \(x) = \(Elementary.log(x))")
            #expect(abs(Elementary.exp(ln) - x) <= 4 * x.ulp * max(1, abs(ln)), "exp \(ln) = \(Elementary.exp(ln))")
        }
        #expect(Elementary.log(1) == 0)
        #expect(Elementary.log(0) == -.infinity)
        #expect(Elementary.log(-1).isNaN)
        #expect(Elementary.exp(0) == 1)
        #expect(Elementary.exp(800) == .infinity)
        #expect(Elementary.exp(-800) == 0)
    }

    @Test("ln then exp comes back to within 4 ulps across the doubles a slider uses")
    func roundTrips() {
        var x = 1e-12
        while x < 1e12 {
            #expect(abs(Elementary.exp(Elementary.log(x)) - x) <= 4 * x.ulp * max(1, abs(Elementary.log(x))), "\(x)")
            x *= 1.37
        }
    }

    @Test("rounding to significant digits is idempotent, keeps the sign and never leaves the doubles")
    func significantDigits() {
        for d in 1...15 {
            var x = 1.234567890123e-20
            while x < 1e20 {
                let r = roundSignificant(x, digits: d)
                #expect(roundSignificant(r, digits: d) == r, "\(x) to \(d) digits")
                #expect(roundSignificant(-x, digits: d) == -r)
                #expect(abs(r - x) <= 0.5 * abs(x) * pow10(1 - d) * 1.0000001, "\(x) to \(d) digits gave \(r)")
                x *= 7.3
            }
        }
        #expect(roundSignificant(.greatestFiniteMagnitude, digits: 1) == .greatestFiniteMagnitude)
        #expect(roundSignificant(.nan, digits: 3).isNaN)
        #expect(roundSignificant(0, digits: 3) == 0)
    }

    private func pow10(_ k: Int) -> Double { powerOfTen(k) }

    @Test("a log slider's every stored value sits where its position says, and positions are monotonic")
    func logMonotonic() {
        let math = SliderMath(min: 20, max: 20000, scale: .log, digits: 3)
        var last = -1.0
        for i in 0...1000 {
            let v = math.value(at: Double(i) / 1000)
            #expect(v >= last && math.isValid(v), "f \(Double(i) / 1000) gave \(v)")
            #expect(abs(math.value(at: math.position(of: v)) - v) <= 0, "\(v) does not come back")
            last = v
        }
        #expect(math.value(at: 0) == 20 && math.value(at: 1) == 20000)
    }

    @Test("a linear slider with digits rounds what it stores; without, nothing changes")
    func linearDigits() {
        let rounded = SliderMath(min: 0, max: 10, digits: 2)
        #expect(rounded.value(at: 0.123456) == 1.2)
        #expect(rounded.setting(3.14159) == 3.1)
        #expect(rounded.stepping(3.1, by: 1) == 3.2)
        #expect(rounded.isValid(3.1) && !rounded.isValid(3.14))
        let plain = SliderMath(min: 0, max: 10)
        #expect(plain.value(at: 0.123456) == 0.123456 * 10)
        #expect(plain.setting(3.14159) == 3.14159)
    }
}
