/// One axis of an xy pad: a slider's math, with what people read beside it.
public struct Axis: Sendable, Hashable {
    /// The axis' math: exactly a slider's (linear with an optional step, or log).
    public var math: SliderMath
    /// Shown after the value ("Hz"); may be empty.
    public var unit: String
    /// The axis' name ("Cutoff"); may be empty.
    public var label: String

    public init(math: SliderMath, unit: String = "", label: String = "") {
        self.math = math
        self.unit = unit
        self.label = label
    }
}

/// The two axes of an xy pad; its one thumb `xy` moves both at once.
public struct XYSpec: Sendable, Hashable {
    public var x: Axis
    public var y: Axis

    public init(x: Axis, y: Axis) {
        self.x = x
        self.y = y
    }

    /// The state at track point `p`: each axis placed (snapped, rounded, clamped) on its own.
    func state(at p: TrackPoint) -> ControlState {
        .xy(x: x.math.value(at: p.x), y: y.math.value(at: p.y))
    }

    /// The track point of a state's values.
    func point(of x: Double, _ y: Double) -> TrackPoint {
        TrackPoint(self.x.math.position(of: x), self.y.math.position(of: y))
    }

    /// Whether both values are values of their axes.
    func isValid(_ x: Double, _ y: Double) -> Bool {
        self.x.math.isValid(x) && self.y.math.isValid(y)
    }
}
