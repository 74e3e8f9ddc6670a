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
    /// Move a thumb by whole steps; `by` must be a whole number.
    case step(control: String, thumb: String?, by: Double)
    /// Revert the sender's last committed gesture, `set` or `step`.
    case undo
    /// Re-apply the sender's last undone edit.
    case redo

    /// The control the operation names; `undo` and `redo` name none.
    public var control: String? {
        switch self {
        case let .drag(control, _, _, _), let .set(control, _, _), let .step(control, _, _): control
        case .undo, .redo: nil
        }
    }
}

/// The phases of a drag gesture.
public enum DragPhase: String, Sendable, Hashable, CaseIterable {
    case begin, move, end, cancel
}

/// Where a drag's pointer is, as a track fraction.
public enum Pointer: Sendable, Hashable {
    /// The total translation since the gesture began (never accumulated twice).
    case dx(Double)
    /// An absolute pointer position (a tap or press on the track).
    case at(Double)
}

/// The value of a `set`, as the JSON carried it.
public enum SetValue: Sendable, Hashable {
    /// A JSON number.
    case number(Double)
    /// A JSON string: `#RRGGBB` for a whole colour.
    case text(String)
    /// Anything else (`true`, `null`, an object…), named by its JSON type.
    case other(String)
}
