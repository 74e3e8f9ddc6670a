import TandemCore

/// One committed change of one control, as the room saw it.
public struct Change: Sendable, Hashable {
    /// The control's id.
    public var control: String
    /// Its whole committed state.
    public var state: ControlState
    /// The control's revision after the commit.
    public var rev: Int
    /// The client id that made it (`nil` when a reconnect's welcome caught it up).
    public var by: String?
    /// That client's display name, when the room knows it.
    public var name: String?
    /// Whether this client made it.
    public var mine: Bool

    /// The one number of a one-number control (slider, snap value, gauge, toggle 0/1).
    public var value: Double? { state.primaryValue }
}

/// Another client's live gesture (a ghost): its latest preview, or its end/cancel.
public struct Ghost: Sendable, Hashable {
    public var control: String
    public var thumb: String
    /// The client id dragging, and its display name when the room knows it.
    public var by: String
    public var name: String?
    /// `begin`, `move`, `end` or `cancel`.
    public var phase: String
    /// The previewed state of the whole control.
    public var state: ControlState
}

/// Something the room reports besides changes.
public enum RoomEvent: Sendable {
    /// The room's schema was replaced (close 1012) and the client re-joined.
    case schemaChanged(RoomSchema)
    /// The connection dropped; the client is reconnecting.
    case disconnected(code: Int, reason: String)
    /// The client is back (a welcome arrived).
    case reconnected(rev: Int)
}

extension ControlState {
    /// The number most users mean by "the value".
    public var primaryValue: Double? {
        switch self {
        case let .slider(value): value
        case let .snap(_, value): value
        case let .gauge(value, _): value
        case let .toggle(on): on ? 1 : 0
        case let .button(presses): Double(presses)
        case .range, .color, .xy: nil
        }
    }
}
