/// A control as written in a room file or an admin request, before validation.
///
/// Every field is optional so that a missing one can be reported by name;
/// `RoomSchema(validating:)` turns definitions into `Control`s or says exactly
/// what is wrong. The wire module fills these from JSON.
public struct ControlDefinition: Sendable, Hashable {
    public var id: String?
    public var type: String?
    public var label: String?
    public var commit: String?
    /// slider, gauge
    public var min: Double?
    /// slider, gauge
    public var max: Double?
    /// slider, color
    public var step: Double?
    /// snap
    public var values: [Double]?
    /// snap: `ordinal` (default) or `proportional`
    public var layout: String?
    /// snap, slider, gauge
    public var unit: String?
    /// range: `[lo, hi]` (the JSON `scale` as a list)
    public var scale: [Double]?
    /// slider: `linear` (default) or `log` (the JSON `scale` as a string)
    public var scaleName: String?
    /// slider: significant digits of a stored value, 1–15
    public var digits: Double?
    /// snap: what people read in place of each value
    public var labels: [String]?
    /// xy: the horizontal axis
    public var x: AxisDefinition?
    /// xy: the vertical axis
    public var y: AxisDefinition?
    /// any kind: the heading the card sits under
    public var group: String?
    /// any kind: help text under the label
    public var description: String?
    /// gauge (default true), slider, snap, toggle (default false): whether the server keeps a time series of it
    public var series: Bool?
    /// range: `[lo, hi]` inside `scale`; defaults to `scale`
    public var operable: [Double]?
    /// range: defaults to 1
    public var minGap: Double?
    /// The starting state; each kind has a default when it is absent.
    public var state: StateDefinition?

    public init(id: String? = nil, type: String? = nil, label: String? = nil, commit: String? = nil,
                min: Double? = nil, max: Double? = nil, step: Double? = nil,
                values: [Double]? = nil, layout: String? = nil, unit: String? = nil,
                scale: [Double]? = nil, operable: [Double]? = nil, minGap: Double? = nil,
                state: StateDefinition? = nil, scaleName: String? = nil, digits: Double? = nil,
                labels: [String]? = nil, x: AxisDefinition? = nil, y: AxisDefinition? = nil,
                group: String? = nil, description: String? = nil, series: Bool? = nil) {
        self.id = id
        self.type = type
        self.label = label
        self.commit = commit
        self.min = min
        self.max = max
        self.step = step
        self.values = values
        self.layout = layout
        self.unit = unit
        self.scale = scale
        self.operable = operable
        self.minGap = minGap
        self.state = state
        self.scaleName = scaleName
        self.digits = digits
        self.labels = labels
        self.x = x
        self.y = y
        self.group = group
        self.description = description
        self.series = series
    }
}

/// A control's starting state as written, before validation.
public struct StateDefinition: Sendable, Hashable {
    /// slider, gauge; snap (must equal `values[index]` when both are given)
    public var value: Double?
    /// snap
    public var index: Double?
    /// range
    public var lower: Double?
    /// range
    public var upper: Double?
    /// color channels
    public var red: Double?
    public var green: Double?
    public var blue: Double?
    /// color, `#RRGGBB`, instead of the channels
    public var hex: String?
    /// toggle
    public var on: Bool?
    /// xy
    public var x: Double?
    public var y: Double?
    /// button
    public var presses: Double?

    public init(value: Double? = nil, index: Double? = nil, lower: Double? = nil, upper: Double? = nil,
                red: Double? = nil, green: Double? = nil, blue: Double? = nil, hex: String? = nil,
                on: Bool? = nil, x: Double? = nil, y: Double? = nil, presses: Double? = nil) {
        self.value = value
        self.index = index
        self.lower = lower
        self.upper = upper
        self.red = red
        self.green = green
        self.blue = blue
        self.hex = hex
        self.on = on
        self.x = x
        self.y = y
        self.presses = presses
    }
}

/// A room as written in a room file or an admin request, before validation.
public struct RoomDefinition: Sendable, Hashable {
    public var id: String?
    public var title: String?
    /// `cards` (default) or `compact`: how the web client lays the room out at first.
    public var layout: String?
    public var controls: [ControlDefinition]?

    public init(id: String? = nil, title: String? = nil, layout: String? = nil, controls: [ControlDefinition]? = nil) {
        self.id = id
        self.title = title
        self.layout = layout
        self.controls = controls
    }
}

/// One axis of an xy pad as written: a slider's fields and a label.
public struct AxisDefinition: Sendable, Hashable {
    public var min: Double?
    public var max: Double?
    /// linear only
    public var step: Double?
    /// `linear` (default) or `log`
    public var scale: String?
    public var digits: Double?
    public var unit: String?
    /// the axis' name, at most 40 characters
    public var label: String?

    public init(min: Double? = nil, max: Double? = nil, step: Double? = nil, scale: String? = nil,
                digits: Double? = nil, unit: String? = nil, label: String? = nil) {
        self.min = min
        self.max = max
        self.step = step
        self.scale = scale
        self.digits = digits
        self.unit = unit
        self.label = label
    }
}
