/// One message from a client, already decoded by the wire module.
public struct ClientMessage: Sendable, Hashable {
    /// Positive, increasing by at least 1 per message from one connection.
    public var seq: Int
    /// What the client asks for.
    public var operation: Operation

    public init(seq: Int, _ operation: Operation) {
        self.seq = seq
        self.operation = operation
    }
}

/// What a client asks a room to do.
public enum Operation: Sendable, Hashable {
    /// A step of a drag gesture on one thumb.
    case drag(control: String, thumb: String?, phase: DragPhase, pointer: Pointer?)
    /// Put a thumb (or a whole colour) at a value.
    case set(control: String, thumb: String?, value: SetValue)
    /// Move a thumb by whole steps; `by` must be a whole number. An xy pad
    /// steps each axis, x by `by` and y by `byY` (`by: [nx, ny]` on the wire).
    case step(control: String, thumb: String?, by: Double, byY: Double? = nil)
    /// Revert the sender's last committed gesture, `set` or `step`.
    case undo
    /// Re-apply the sender's last undone edit.
    case redo
    /// Commit several controls at once, as ONE room revision: a preset's
    /// recall, a restored moment. Not a wire message of its own: the server
    /// builds it from one (it knows the presets and the history). Controls
    /// missing from `states`, gauges, and states that do not fit their
    /// control (a schema changed since) are left as they are.
    case batch(Batch)
    /// Put one control (`control`), or every control of the room (`nil`),
    /// back to its schema's initial state, as one edit of the sender's (one
    /// room revision, undone in one step). A whole-room reset leaves gauges and
    /// buttons alone, as a batch does; a gauge's own is `read_only`, a button's
    /// `bad_value`.
    case reset(control: String?)
    /// "Only I move this until I let it go": others' writes to the control get
    /// `claimed` naming the sender. Claiming again refreshes it.
    case claim(control: String)
    /// Lets a claim go: the holder's own, or anyone's from an admin.
    case release(control: String)
    /// Where the sender is: the control focused in its page (`nil`: none).
    /// Not a write: viewers send it too. Everyone sees it in the sender's presence.
    case focus(control: String?)

    /// The control the operation names; `undo`, `redo`, batches and a
    /// whole-room reset name none.
    public var control: String? {
        switch self {
        case let .drag(control, _, _, _), let .set(control, _, _), let .step(control, _, _, _): control
        case let .reset(control): control
        case let .claim(control), let .release(control): control
        case .undo, .redo, .batch, .focus: nil
        }
    }

    /// Whether it would change the room (a viewer's is `forbidden`): all but `focus`.
    public var isWrite: Bool {
        if case .focus = self { return false }
        return true
    }
}

/// The phases of a drag gesture.
public enum DragPhase: String, Sendable, Hashable, CaseIterable {
    case begin, move, end, cancel
}

/// Where a drag's pointer is, in track fractions. `dy` and `y` are an xy
/// pad's second axis (+dy goes up the pad, toward the y max); other controls
/// ignore `dy` and refuse a `y`.
public enum Pointer: Sendable, Hashable {
    /// The total translation since the gesture began (never accumulated twice).
    case dx(Double, dy: Double = 0)
    /// An absolute pointer position (a tap or press on the track); `[x, y]` on a pad.
    case at(Double, y: Double? = nil)
}

/// The value of a `set`, as the JSON carried it.
public enum SetValue: Sendable, Hashable {
    /// A JSON number.
    case number(Double)
    /// A JSON string: `#RRGGBB` for a whole colour.
    case text(String)
    /// `true` or `false`: a toggle's state, a button's press.
    case flag(Bool)
    /// An object of at most `x` and `y`, both numbers: an xy pad's values (an absent one stays).
    case point(x: Double?, y: Double?)
    /// Anything else (`null`, an array, another object…), named by its JSON type.
    case other(String)

    /// The JSON type's name, for a refusal that says what came instead of a number.
    var typeName: String {
        switch self {
        case .number: "number"
        case .text: "string"
        case .flag: "boolean"
        case .point: "object"
        case let .other(type): type
        }
    }
}

/// A set of whole control states committed together (`Operation.batch`).
public struct Batch: Sendable, Hashable {
    /// Why: what the commit log and people see ("preset Warm", "restore 1402").
    public var origin: String
    /// Each control's new state, by control id.
    public var states: [String: ControlState]
    /// Why, as members are told in a batch note (`nil`: they are not told,
    /// the batch's commits are all they see).
    public var cause: BatchCause?

    public init(origin: String, states: [String: ControlState]) {
        self.origin = origin
        self.states = states
    }

    /// A batch whose members are told why (`Room.lastBatch`).
    public init(_ cause: BatchCause, states: [String: ControlState]) {
        self.origin = cause.origin
        self.states = states
        self.cause = cause
    }
}
