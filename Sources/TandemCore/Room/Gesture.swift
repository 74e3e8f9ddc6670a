/// One live drag gesture on one thumb: who holds it and where their pointer is.
struct Gesture: Sendable, Hashable {
    /// Where the pointer is, as far as the room knows.
    enum PointerState: Sendable, Hashable {
        /// Pressed on the thumb and not moved yet: the thumb keeps its value.
        case still
        /// At this track fraction, already clamped to [0, 1].
        case fraction(Double)
    }

    /// The client holding the thumb.
    let holder: ClientID
    /// The control's position in the room.
    let control: Int
    /// The thumb held.
    let thumb: Thumb
    /// The track fraction `dx` is measured from: the thumb's position at
    /// `begin`, or the `at` of the `begin`.
    let anchor: Double
    /// The thumb's value when the gesture began (a number of the kind `ControlState.value(of:)` gives).
    let startValue: Double
    /// `release`: moves preview and the end commits; `live`: every move commits.
    let commit: CommitMode
    /// The pointer now.
    var pointer: PointerState
    /// The thumb's previewed value (release mode only; live gestures show the committed value).
    var preview: Double?
    /// The last time a message for this gesture arrived; the hold lapses 10 s after it.
    var lastHeard: Moment
    /// Whether a live-mode move committed: the gesture is then an edit to undo when it finishes.
    var committedAny = false

    /// The pointer after `input`: `dx` is added to the anchor, `at` replaces it,
    /// both are clamped to [0, 1]; no input leaves it where it was (a keep-alive).
    func pointer(after input: Pointer?) -> PointerState {
        switch input {
        case let .dx(dx): .fraction(unitClamp(anchor + dx))
        case let .at(at): .fraction(unitClamp(at))
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
