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

    /// The value of one thumb as a number: a snap slider's index, a range
    /// thumb's integer, a slider's value or a colour channel. `nil` for a
    /// thumb the control does not have.
    public func value(of thumb: Thumb) -> Double? {
        switch (self, thumb) {
        case let (.slider(value), .value): value
        case let (.snap(index, _), .index): Double(index)
        case let (.range(state), .lower): Double(state.lower)
        case let (.range(state), .upper): Double(state.upper)
        case let (.color(rgb), _): thumb.colorChannel.map { rgb[$0] }
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
        }
    }
}
