/// The next frame a member's socket should carry.
public enum Frame: Sendable, Hashable {
    /// A refused message of this member's.
    case reject(Reject)
    /// Everything else that changed since the member's previous frame.
    case update(Update)
}

/// A conflated update: the latest of everything that changed since the
/// recipient's previous frame, never a backlog of intermediate values.
public struct Update: Sendable, Hashable {
    /// The room revision.
    public var revision: Int
    /// The highest `seq` of the recipient processed so far (0: none yet).
    public var ack: Int
    /// The latest committed state of every control committed to since the previous frame.
    public var changes: [ControlChange]
    /// The latest entry of every gesture that changed, oldest first; a thumb's
    /// ended gesture comes before the one that took the thumb after it.
    public var gestures: [StampedGesture]
    /// People who joined since the previous frame and are still here.
    public var joined: [Peer]
    /// People the recipient knew who left since the previous frame.
    public var left: [ClientID]
    /// How many people are in the room, when that changed since the
    /// recipient's previous frame (it rides on frames that go out anyway).
    public var present: Int?
    /// The room's latest batch note, when it changed since the recipient's
    /// previous frame: whose recall, restore or reset the changes are.
    public var batch: BatchNote?
}

/// A control's committed state in an update.
public struct ControlChange: Sendable, Hashable {
    /// The control's position in the room.
    public var controlIndex: Int
    /// The control's id.
    public var control: String
    /// Its whole committed state.
    public var state: ControlState
    /// The room revision of that commit.
    public var revision: Int
    /// Who committed it.
    public var by: ClientID?
    /// Who claims the control now (Room+Claims.swift); `nil`: nobody. A claim
    /// taken or ended is a change of its own, at the same `revision`.
    public var claim: ClientID?
    /// The change-log stamp: equal stamps mean identical content, so an encoder
    /// can encode each change once per flush and share the bytes between recipients.
    public var stamp: UInt64

    public init(controlIndex: Int, control: String, state: ControlState, revision: Int, by: ClientID?, claim: ClientID? = nil,
                stamp: UInt64) {
        self.controlIndex = controlIndex
        self.control = control
        self.state = state
        self.revision = revision
        self.by = by
        self.claim = claim
        self.stamp = stamp
    }
}

/// A gesture entry in an update, with its change-log stamp (see `ControlChange.stamp`).
public struct StampedGesture: Sendable, Hashable {
    public var entry: GestureEntry
    public var stamp: UInt64
}
