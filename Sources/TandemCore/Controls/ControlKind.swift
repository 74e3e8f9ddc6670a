/// What a control is, with the parameters its math needs.
public enum ControlKind: Sendable, Hashable {
    /// A continuous slider, optionally on a grid, linear or log.
    case slider(SliderMath)
    /// A discrete slider over a list of values.
    case snap(SnapSpec)
    /// A two-thumb integer range slider.
    case range(RangeMath)
    /// A colour picker of three channel sliders over [0, 1], optionally on a grid.
    case color(step: Double?)
    /// A read-only gauge.
    case gauge(GaugeMath)
    /// An on/off switch.
    case toggle
    /// A two-axis pad with one thumb.
    case xy(XYSpec)
    /// A momentary button: each press is a commit.
    case button

    /// The type name on the wire.
    public var typeName: String {
        switch self {
        case .slider: "slider"
        case .snap: "snap"
        case .range: "range"
        case .color: "color"
        case .gauge: "gauge"
        case .toggle: "toggle"
        case .xy: "xy"
        case .button: "button"
        }
    }

    /// The thumbs a drag, `set` or `step` may name, in a fixed order.
    public var thumbs: [Thumb] {
        switch self {
        case .slider: [.value]
        case .snap: [.index]
        case .range: [.lower, .upper]
        case .color: [.red, .green, .blue]
        case .gauge: []
        case .toggle: [.on]
        case .xy: [.xy]
        case .button: [.press]
        }
    }

    /// Whether drags move it: not a gauge (read-only), a toggle or a button (set and step only).
    public var takesDrags: Bool {
        switch self {
        case .gauge, .toggle, .button: false
        default: true
        }
    }
}

/// The parameters of a snap slider.
public struct SnapSpec: Sendable, Hashable {
    /// The selectable values, non-empty and strictly ascending.
    public var values: [Double]
    /// How the values are spread along the track.
    public var layout: SnapLayout
    /// The unit shown after a value ("pt"); may be empty.
    public var unit: String
    /// What people read in place of each value ("sine", "saw"); `nil`: the values.
    public var labels: [String]?

    public init(values: [Double], layout: SnapLayout = .ordinal, unit: String = "", labels: [String]? = nil) {
        self.values = values
        self.layout = layout
        self.unit = unit
        self.labels = labels
    }
}
