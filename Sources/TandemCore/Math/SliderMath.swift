/// How a slider (or an xy pad's axis) spreads its values along the track.
public enum SliderScale: String, Sendable, Hashable, CaseIterable {
    /// `min + f*(max-min)`: the default.
    case linear
    /// `min*(max/min)^f`: equal track distances are equal ratios (20 Hz to 20 kHz).
    case log
}

/// The math of a continuous slider over `[min, max]`, optionally snapped to a
/// step (linear only) or rounded to significant digits; also one axis of an xy pad.
public struct SliderMath: Sendable, Hashable {
    /// The low end of the slider.
    public var min: Double
    /// The high end of the slider.
    public var max: Double
    /// The grid spacing: values are `min + k*step`. `nil` means continuous. Linear only.
    public var step: Double?
    /// How values spread along the track.
    public var scale: SliderScale
    /// The significant digits a stored value is rounded to (1–15); `nil`: not
    /// rounded. A log slider always has them (3 unless the schema says).
    public var digits: Int?

    public init(min: Double, max: Double, step: Double? = nil, scale: SliderScale = .linear, digits: Int? = nil) {
        self.min = min
        self.max = max
        self.step = step
        self.scale = scale
        self.digits = digits
    }

    /// The digits a log slider rounds to when its schema gives none.
    public static let defaultLogDigits = 3

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

    /// The value at track fraction `f` (clamped to [0, 1]).
    ///
    /// Linear: `min + f*(max-min)`, snapped to the grid. Log: `min*(max/min)^f`.
    /// Then, with `digits`, rounded to that many significant digits and clamped to [min, max].
    public func value(at f: Double) -> Double {
        let f = unitClamp(f)
        switch scale {
        case .log:
            return rounding(min * Elementary.exp(f * Elementary.log(max / min)))
        case .linear:
            guard let n = stepCount else { return rounding(min + f * span) }
            return gridValue(saturatingInt(roundHalfAway(f * Double(n))), of: n)
        }
    }

    /// The track fraction of `value`: `(v-min)/(max-min)`, or `ln(v/min)/ln(max/min)` on a log scale.
    public func position(of value: Double) -> Double {
        switch scale {
        case .log:
            guard value > 0 else { return 0 }
            return Elementary.log(value / min) / Elementary.log(max / min)
        case .linear:
            return (value - min) / span
        }
    }

    /// What a `set` of `value` stores: clamped into `[min, max]`, then snapped
    /// (or rounded to `digits`, then clamped again).
    public func setting(_ value: Double) -> Double {
        let v = clamp(value, min, max)
        guard let n = stepCount else { return rounding(v) }
        return gridValue(gridIndex(of: v, n), of: n)
    }

    /// `value` moved by `n` steps, stopping at the ends. Without a step: a
    /// linear slider moves by `n` hundredths of the span, a log slider by `n`
    /// hundredths of the track from the value's position.
    public func stepping(_ value: Double, by n: Int) -> Double {
        if scale == .log {
            return self.value(at: position(of: clamp(value, min, max)) + Double(n) / 100)
        }
        guard let count = stepCount else {
            return rounding(clamp(value + Double(n) * span / 100, min, max))
        }
        let k = gridIndex(of: clamp(value, min, max), count)
        let moved = k.addingReportingOverflow(n)
        let target = moved.overflow ? (n > 0 ? count : 0) : clamp(moved.partialValue, 0, count)
        return gridValue(target, of: count)
    }

    /// Whether `value` is within the bounds and, with a step, on the grid (to
    /// 1e-9 of the span); with `digits`, `min`, `max` or a number that rounding keeps as it is.
    public func isValid(_ value: Double) -> Bool {
        guard value.isFinite, value >= min, value <= max else { return false }
        if let digits, step == nil {
            return value == min || value == max || roundSignificant(value, digits: digits) == value
        }
        guard let n = stepCount else { return true }
        return abs(gridValue(gridIndex(of: value, n), of: n) - value) <= 1e-9 * Swift.max(1, abs(span))
    }

    /// `v` rounded to `digits` significant digits (when there are digits), then clamped to [min, max].
    private func rounding(_ v: Double) -> Double {
        guard let digits else { return v }
        return clamp(roundSignificant(v, digits: digits), min, max)
    }

    private func gridIndex(of value: Double, _ n: Int) -> Int {
        clamp(saturatingInt(roundHalfAway((value - min) / span * Double(n))), 0, n)
    }

    private func gridValue(_ k: Int, of n: Int) -> Double {
        if k == n { return max }
        return min + span * (Double(k) / Double(n))
    }
}
