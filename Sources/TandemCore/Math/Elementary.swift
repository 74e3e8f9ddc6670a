/// `ln` and `exp` in plain Swift: the core imports nothing (not even libm's
/// `log` and `exp`), and a log slider needs both.
///
/// Both reduce the argument by powers of two and sum a fixed number of terms
/// of a series, in IEEE double arithmetic only, so the result is the same on
/// every machine (within about one unit in the last place of the true value).
/// What a log slider stores is then rounded to `digits` significant digits,
/// so that last place never reaches the wire.
enum Elementary {
    /// ln 2 split in two (fdlibm's constants): `k*ln2Hi` is exact for |k| < 2^11.
    static let ln2Hi = 6.93147180369123816490e-01
    static let ln2Lo = 1.90821492927058770002e-10
    static let ln2 = 0.6931471805599453
    static let ln10 = 2.302585092994046

    /// The natural logarithm of `x`: NaN below 0, -∞ at 0, +∞ at +∞.
    static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        // x = m * 2^e with m in (√½, √2], so that s below is at most 0.1716.
        var e = Double(x.exponent)
        var m = x.significand
        if m > 1.4142135623730951 {
            m /= 2
            e += 1
        }
        // ln m = 2 atanh(s) = 2 (s + s³/3 + s⁵/5 + …), s = (m-1)/(m+1); s² ≤ 0.0295,
        // so 13 terms take the sum below 1e-19 of it.
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var series = 0.0
        for k in stride(from: 12, through: 0, by: -1) {
            series = 1 / Double(2 * k + 1) + s2 * series
        }
        return e * ln2Hi + (2 * s * series + e * ln2Lo)
    }

    /// e to the power `y`: 0 far below, +∞ far above.
    static func exp(_ y: Double) -> Double {
        if y.isNaN { return y }
        if y > 709.782712893384 { return .infinity }
        if y < -745.1332191019412 { return 0 }
        // y = k ln2 + r with |r| ≤ ln2/2; e^r by its Taylor series (18 terms: r^18/18! < 1e-24).
        let k = roundHalfAway(y / ln2)
        let r = (y - k * ln2Hi) - k * ln2Lo
        var sum = 1.0
        for n in stride(from: 18, through: 1, by: -1) {
            sum = 1 + sum * r / Double(n)
        }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }
}
