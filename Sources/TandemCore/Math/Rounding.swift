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
