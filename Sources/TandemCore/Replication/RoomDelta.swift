/// Replication of a room across the nodes of a cluster (docs/scale-out.md).
///
/// One node, the room's *owner*, holds the room's *authority*: a `Room` in
/// `.authority` mode that applies every message in order, exactly as a
/// single node does, but sends no frames itself. Every node that serves
/// members of the room (the owner too) keeps a *view*: a `Room` in `.view`
/// mode fed only by what the authority publishes, holding the room's visible
/// state (committed states, live gestures, announced peers, the count), its
/// own members (cursor, ack, rejects) and its own change log, so that it
/// conflates and fans out for its members exactly as a single node does.
///
/// The authority publishes a `RoomDelta` after each loop turn that changed
/// it; a view that starts late, or missed a delta, or sees a new owner,
/// absorbs a `RoomSnapshot` instead: the view changes only where it differs,
/// so its members' next frames carry exactly the difference.
enum ReplicaMode: Sendable, Hashable {
    /// A room on a single node: members get frames from it directly.
    case standalone
    /// The owner's room: applies messages; every member's frames come from views.
    case authority
    /// A node's copy of the visible room, changed only by `absorb`.
    case view
}

/// What a room's authority publishes after a turn: what changed since its
/// previous delta, read from its change log, plus what the turn owes
/// individual members (acks, rejects, admissions).
public struct RoomDelta: Sendable, Hashable {
    /// The room revision after the turn.
    public var revision: Int
    /// The latest committed state of every control committed to since the previous delta (`stamp` unused: 0).
    public var changes: [ControlChange]
    /// The latest entry of every gesture that changed, in log order (an ended gesture before the one that took its thumb after it).
    public var gestures: [GestureEntry]
    /// People announced since the previous delta and still here, in order.
    public var joined: [Peer]
    /// Announced people who left since the previous delta.
    public var left: [ClientID]
    /// How many people are in the room, announced or not.
    public var present: Int
    /// Whether the authority refreshed presence (`Room.refreshPresence`): views touch theirs.
    public var presenceRefreshed: Bool
    /// Members whose `ack` moved, with its new value, in order.
    public var acks: [MemberAck]
    /// Rejects for members, in order.
    public var rejects: [Reject]
    /// Members that joined (or re-registered) since the previous delta: the
    /// node serving each admits it into its view and sends its welcome.
    public var admitted: [Admission]
    /// The room's latest batch note, when it changed since the previous delta.
    public var batch: BatchNote?

    public init(revision: Int, changes: [ControlChange] = [], gestures: [GestureEntry] = [], joined: [Peer] = [],
                left: [ClientID] = [], present: Int, presenceRefreshed: Bool = false, acks: [MemberAck] = [],
                rejects: [Reject] = [], admitted: [Admission] = [], batch: BatchNote? = nil) {
        self.revision = revision
        self.changes = changes
        self.gestures = gestures
        self.joined = joined
        self.left = left
        self.present = present
        self.presenceRefreshed = presenceRefreshed
        self.acks = acks
        self.rejects = rejects
        self.admitted = admitted
        self.batch = batch
    }

    /// Whether it carries nothing a view would act on but the count.
    public var isEmpty: Bool {
        changes.isEmpty && gestures.isEmpty && joined.isEmpty && left.isEmpty && !presenceRefreshed
            && acks.isEmpty && rejects.isEmpty && admitted.isEmpty && batch == nil
    }
}

/// A member's `ack` after a turn.
public struct MemberAck: Sendable, Hashable {
    public var client: ClientID
    public var seq: Int
    public init(client: ClientID, seq: Int) {
        self.client = client
        self.seq = seq
    }
}

/// A member the authority took in: how others see it, what it may do, and
/// whether it is announced (past the presence limit newcomers are quiet).
public struct Admission: Sendable, Hashable {
    public var peer: Peer
    public var role: Role
    public var announced: Bool
    /// Its highest `seq` processed so far (0: none): a member re-registered
    /// with a new owner keeps its order and ack.
    public var ack: Int
    public init(peer: Peer, role: Role, announced: Bool, ack: Int = 0) {
        self.peer = peer
        self.role = role
        self.announced = announced
        self.ack = ack
    }
}

/// The whole visible room, as a view must show it: what a new view starts
/// from, and what every view resynchronises to when it missed a delta or the
/// room changed owner.
public struct RoomSnapshot: Sendable, Hashable {
    /// The room revision.
    public var revision: Int
    /// Every control's committed state, revision and author, in schema order.
    public var controls: [CommittedControl]
    /// The latest entry of every live gesture.
    public var gestures: [GestureEntry]
    /// The announced people, in the order they were announced.
    public var peers: [Peer]
    /// How many people are in the room, announced or not.
    public var present: Int

    public init(revision: Int, controls: [CommittedControl], gestures: [GestureEntry], peers: [Peer], present: Int) {
        self.revision = revision
        self.controls = controls
        self.gestures = gestures
        self.peers = peers
        self.present = present
    }
}

/// A control's committed state in a snapshot.
public struct CommittedControl: Sendable, Hashable {
    public var state: ControlState
    /// The room revision of its last commit (0: never committed).
    public var revision: Int
    /// Who made it (`nil`: unknown, such as a state loaded from storage).
    public var by: ClientID?
    /// Who claims it now, if anyone.
    public var claim: ClientID?
    public init(state: ControlState, revision: Int, by: ClientID?, claim: ClientID? = nil) {
        self.state = state
        self.revision = revision
        self.by = by
        self.claim = claim
    }
}
