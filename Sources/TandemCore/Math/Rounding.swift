/// Rounding and clamping exactly as the protocol specifies them.
///
/// Every rule of "The math" rounds half away from zero; JavaScript's
/// `Math.round` does not, so the web client carries its own copy of this rule.
@inlinable
public func roundHalfAway(_ x: Double) -> Double {
    x.rounded(.toNearestOrAwayFromZero)
}

/// `x` limited to `[lo, hi]`; NaN comes out as `lo` so no caller ever keeps one.
@usableFromInline
func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double {
    if x.isNaN { return lo }
    return Swift.min(Swift.max(x, lo), hi)
}

/// `x` limited to `[lo, hi]`.
@usableFromInline
func clamp(_ x: Int, _ lo: Int, _ hi: Int) -> Int {
    Swift.min(Swift.max(x, lo), hi)
}

/// A track fraction clamped into `[0, 1]`.
@usableFromInline
func unitClamp(_ f: Double) -> Double {
    clamp(f, 0, 1)
}

/// `Int(x)` for a double already known to be integral and in range, saturating otherwise.
func saturatingInt(_ x: Double) -> Int {
    if x.isNaN { return 0 }
    if x >= 9.0e18 { return Int.max }
    if x <= -9.0e18 { return Int.min }
    return Int(x)
}

/// `10^k` as the nearest double (what the literal `1eK` means), for k in
/// -400...400; 0 and +∞ beyond the range of doubles. Read from a table built
/// once by parsing, so that no power is off by the rounding of a product.
func powerOfTen(_ k: Int) -> Double {
    if k < -400 { return 0 }
    if k > 400 { return .infinity }
    return powersOfTen[k + 400]
}

private let powersOfTen: [Double] = (-400...400).map { Double("1e\($0)") ?? 0 }

/// `x` rounded to `digits` significant digits, half away from zero: the
/// double nearest to `m·10^-k`.
///
/// With `e` the decimal exponent of |x| (`10^e ≤ |x| < 10^(e+1)`, decided by
/// comparing with `powerOfTen`, never by a logarithm alone) and
/// `k = digits - 1 - e`, the digits are `m = round(|x| * 10^k)` when `k ≥ 0`
/// and `round(|x| / 10^-k)` otherwise (`round` is `roundHalfAway`, `10^k` is
/// `powerOfTen(k)`). For |k| ≤ 22 the power is exact and `m / 10^k` (or
/// `m * 10^-k`) is already the nearest double; beyond, the decimal `m e -k`
/// is parsed, which is the nearest double too (1e-300 stays 1e-300). 0, NaN,
/// infinities, and numbers whose rounding would leave the doubles (below
/// about 1e-292 with 15 digits, or rounding up past the largest double) are returned as they are.
public func roundSignificant(_ x: Double, digits: Int) -> Double {
    guard x.isFinite, x != 0, digits > 0 else { return x }
    let a = abs(x)
    var e = Int((Elementary.log(a) / Elementary.ln10).rounded(.down))
    while e > -400 && a < powerOfTen(e) { e -= 1 }
    while e < 400 && a >= powerOfTen(e + 1) { e += 1 }
    let k = digits - 1 - e
    let p = powerOfTen(abs(k))
    guard p.isFinite else { return x }
    let m = roundHalfAway(k >= 0 ? a * p : a / p)
    let rounded: Double
    if abs(k) <= 22 {
        rounded = k >= 0 ? m / p : m * p
    } else {
        rounded = Double("\(Int(m))e\(-k)") ?? x
    }
    guard rounded.isFinite else { return x }
    return x < 0 ? -rounded : rounded
}
