/// The math of a continuous slider over `[min, max]`, optionally snapped to a step.
public struct SliderMath: Sendable, Hashable {
    /// The low end of the slider.
    public var min: Double
    /// The high end of the slider.
    public var max: Double
    /// The grid spacing: values are `min + k*step`. `nil` means continuous.
    public var step: Double?

    public init(min: Double, max: Double, step: Double? = nil) {
        self.min = min
        self.max = max
        self.step = step
    }

    /// The span `max - min`.
    public var span: Double { max - min }

    /// The number of steps across the span, `(max-min)/step` rounded; `nil` without a step.
    ///
    /// Values are computed as `min + span * k / stepCount` rather than
    /// `min + k*step` so that a grid like 0.01 lands on the shortest decimal
    /// (70/100 is 0.7, where 70*0.01 is 0.7000000000000001) whenever the division allows it.
    public var stepCount: Int? {
        guard let step else { return nil }
        return saturatingInt(roundHalfAway(span / step))
    }

    /// The value at track fraction `f`: `min + f*(max-min)`, snapped to the grid.
    public func value(at f: Double) -> Double {
        let f = unitClamp(f)
        guard let n = stepCount else { return min + f * span }
        return gridValue(saturatingInt(roundHalfAway(f * Double(n))), of: n)
    }

    /// The track fraction of `value`.
    public func position(of value: Double) -> Double {
        (value - min) / span
    }

    /// What a `set` of `value` stores: clamped into `[min, max]`, then snapped.
    public func setting(_ value: Double) -> Double {
        let v = clamp(value, min, max)
        guard let n = stepCount else { return v }
        return gridValue(gridIndex(of: v, n), of: n)
    }

    /// `value` moved by `n` steps (no step: by `n` hundredths of the span), stopping at the ends.
    public func stepping(_ value: Double, by n: Int) -> Double {
        guard let count = stepCount else {
            return clamp(value + Double(n) * span / 100, min, max)
        }
        let k = gridIndex(of: clamp(value, min, max), count)
        let moved = k.addingReportingOverflow(n)
        let target = moved.overflow ? (n > 0 ? count : 0) : clamp(moved.partialValue, 0, count)
        return gridValue(target, of: count)
    }

    /// Whether `value` is within the bounds and, with a step, on the grid (to 1e-9 of the span).
    public func isValid(_ value: Double) -> Bool {
        guard value.isFinite, value >= min, value <= max else { return false }
        guard let n = stepCount else { return true }
        return abs(gridValue(gridIndex(of: value, n), of: n) - value) <= 1e-9 * Swift.max(1, abs(span))
    }

    private func gridIndex(of value: Double, _ n: Int) -> Int {
        clamp(saturatingInt(roundHalfAway((value - min) / span * Double(n))), 0, n)
    }

    private func gridValue(_ k: Int, of n: Int) -> Double {
        if k == n { return max }
        return min + span * (Double(k) / Double(n))
    }
}
