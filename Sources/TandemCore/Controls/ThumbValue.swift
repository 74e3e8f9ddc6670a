/// A thumb's value as the room keeps it for previews and undo: one number for
/// most thumbs (a slider's value, a snap index, a range thumb, a channel, a
/// toggle's 0 or 1), two for an xy pad's thumb. A one-number thumb has `y` 0,
/// so comparing values compares what matters.
public struct ThumbValue: Sendable, Hashable {
    /// The value, or an xy pad's x.
    public var x: Double
    /// An xy pad's y; 0 for every other thumb.
    public var y: Double

    public init(_ x: Double, _ y: Double = 0) {
        self.x = x
        self.y = y
    }
}

/// Where a pointer is on a control, in track fractions: `x` along the track;
/// `y` up an xy pad (0 toward its y min), and 0 for every other control.
public struct TrackPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double = 0) {
        self.x = x
        self.y = y
    }

    /// Both fractions clamped into [0, 1].
    var clamped: TrackPoint { TrackPoint(unitClamp(x), unitClamp(y)) }
}
