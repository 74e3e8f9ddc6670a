/// One live drag gesture on one thumb: who holds it and where their pointer is.
struct Gesture: Sendable, Hashable {
    /// Where the pointer is, as far as the room knows.
    enum PointerState: Sendable, Hashable {
        /// Pressed on the thumb and not moved yet: the thumb keeps its value.
        case still
        /// At this track point, already clamped to [0, 1] on each axis.
        case fraction(TrackPoint)
    }

    /// The client holding the thumb.
    let holder: ClientID
    /// The control's position in the room.
    let control: Int
    /// The thumb held.
    let thumb: Thumb
    /// The track point `dx` (and `dy`) is measured from: the thumb's position
    /// at `begin`, or the `at` of the `begin`.
    let anchor: TrackPoint
    /// The thumb's value when the gesture began (as `ControlState.thumbValue(of:)` gives it).
    let startValue: ThumbValue
    /// `release`: moves preview and the end commits; `live`: every move commits.
    let commit: CommitMode
    /// The pointer now.
    var pointer: PointerState
    /// The thumb's previewed value (release mode only; live gestures show the committed value).
    var preview: ThumbValue?
    /// The last time a message for this gesture arrived; the hold lapses 10 s after it.
    var lastHeard: Moment
    /// Whether a live-mode move committed: the gesture is then an edit to undo when it finishes.
    var committedAny = false

    /// The pointer after `input`: `dx` (and `dy`) is added to the anchor, `at`
    /// replaces it, each axis clamped to [0, 1]; no input leaves it where it
    /// was (a keep-alive). Only a pad's gesture has a second axis: any other keeps y at 0.
    func pointer(after input: Pointer?) -> PointerState {
        switch input {
        case let .dx(dx, dy): .fraction(TrackPoint(anchor.x + dx, thumb == .xy ? anchor.y + dy : 0).clamped)
        case let .at(x, y): .fraction(TrackPoint(x, thumb == .xy ? y ?? 0 : 0).clamped)
        case nil: pointer
        }
    }
}

/// One thumb of one control: the unit a gesture holds.
struct Slot: Sendable, Hashable {
    let control: Int
    let thumb: Thumb
    /// The gesture holding the thumb now.
    var live: Gesture?
    /// The latest entry of the live gesture, as frames carry it.
    var liveEntry: GestureEntry?
    /// The last entry (`end` or `cancel`) of the gesture that held it before.
    var endedEntry: GestureEntry?
}
