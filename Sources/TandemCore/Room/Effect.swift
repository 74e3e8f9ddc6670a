/// Something that happened when a room applied a message, for the server to act on.
///
/// The room has already recorded each effect for its recipients' next frames;
/// the server uses effects to wake writers, write storage, count metrics and log.
public enum Effect: Sendable, Hashable {
    /// A control's committed state changed.
    case commit(Commit)
    /// A live gesture began, moved, ended or was cancelled.
    case gesture(GestureEntry)
    /// A message was refused.
    case reject(Reject)
    /// A message from `client` was processed; `seq` is now its `ack`.
    case ack(client: ClientID, seq: Int)
    /// Someone joined.
    case joined(Peer)
    /// Someone left.
    case left(ClientID)
    /// Control `controlIndex` was claimed by `holder`, or released (`nil`):
    /// everyone's next frame carries the control with its claim.
    case claim(controlIndex: Int, holder: ClientID?)
}

/// A change to a control's committed state.
public struct Commit: Sendable, Hashable {
    /// The control's position in the room.
    public var controlIndex: Int
    /// The control's id.
    public var control: String
    /// The whole new committed state.
    public var state: ControlState
    /// The room revision this commit made.
    public var revision: Int
    /// Who committed it.
    public var by: ClientID
}

/// One entry of a live gesture, as recipients see it.
public struct GestureEntry: Sendable, Hashable {
    /// The control's position in the room.
    public var controlIndex: Int
    /// The control's id.
    public var control: String
    /// The thumb held.
    public var thumb: Thumb
    /// The holder.
    public var by: ClientID
    /// `begin` or `move` while live; the last entry of a gesture is `end` or `cancel`.
    public var phase: DragPhase
    /// The control's displayed state with this gesture's preview in it; a
    /// client draws the ghost from `state[thumb]`.
    public var state: ControlState

    public init(controlIndex: Int, control: String, thumb: Thumb, by: ClientID, phase: DragPhase, state: ControlState) {
        self.controlIndex = controlIndex
        self.control = control
        self.thumb = thumb
        self.by = by
        self.phase = phase
        self.state = state
    }
}
