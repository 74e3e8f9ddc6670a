/// The whole state of one control; the wire always carries all of it, never a diff.
public enum ControlState: Sendable, Hashable {
    /// `{"value": v}`
    case slider(value: Double)
    /// `{"index": i, "value": values[i]}`
    case snap(index: Int, value: Double)
    /// `{"lower": l, "upper": u}`
    case range(RangeState)
    /// `{"red": r, "green": g, "blue": b, "hex": "#RRGGBB"}`
    case color(RGB)
    /// `{"value": v, "fraction": f}`
    case gauge(value: Double, fraction: Double)
    /// `{"on": true|false}`
    case toggle(on: Bool)
    /// `{"x": x, "y": y}`
    case xy(x: Double, y: Double)
    /// `{"presses": n}`
    case button(presses: Int)

    /// The value of one one-number thumb: a snap slider's index, a range
    /// thumb's integer, a slider's value, a colour channel, a toggle's 0 or 1,
    /// a button's presses. `nil` for a thumb the control does not have, and
    /// for an xy pad's two-number thumb (see `thumbValue(of:)`).
    public func value(of thumb: Thumb) -> Double? {
        switch (self, thumb) {
        case (.xy, _): nil
        default: thumbValue(of: thumb)?.x
        }
    }

    /// The value of one thumb, one number or an xy pad's two; `nil` for a thumb the control does not have.
    public func thumbValue(of thumb: Thumb) -> ThumbValue? {
        switch (self, thumb) {
        case let (.slider(value), .value): ThumbValue(value)
        case let (.snap(index, _), .index): ThumbValue(Double(index))
        case let (.range(state), .lower): ThumbValue(Double(state.lower))
        case let (.range(state), .upper): ThumbValue(Double(state.upper))
        case let (.color(rgb), _): thumb.colorChannel.map { ThumbValue(rgb[$0]) }
        case let (.toggle(on), .on): ThumbValue(on ? 1 : 0)
        case let (.xy(x, y), .xy): ThumbValue(x, y)
        case let (.button(presses), .press): ThumbValue(Double(presses))
        default: nil
        }
    }

    /// The committed value of every thumb in `thumbs` order, for checks and logs.
    public var numbers: [Double] {
        switch self {
        case let .slider(value): [value]
        case let .snap(index, value): [Double(index), value]
        case let .range(state): [Double(state.lower), Double(state.upper)]
        case let .color(rgb): [rgb.red, rgb.green, rgb.blue]
        case let .gauge(value, fraction): [value, fraction]
        case let .toggle(on): [on ? 1 : 0]
        case let .xy(x, y): [x, y]
        case let .button(presses): [Double(presses)]
        }
    }
}
