import TandemCore
import TandemStorage

/// One room's replication on this node (docs/scale-out.md): the view's
/// place in the owner's publications and, while this node owns the room,
/// the authority and what its turn owes the other nodes.
final class RoomReplica {
    let id: String

    init(id: String) {
        self.id = id
    }

    // MARK: the view (every node with members of the room)

    /// Whether the view absorbed a snapshot of the current owner and every publication since.
    var synced = false
    /// The owner's epoch and the last publication absorbed from it.
    var viewEpoch = 0
    var viewSequence = 0
    /// The owner as its publications name it.
    var viewOwner: String?
    /// When the owner was last heard from: silence past the lease means it may be gone.
    var lastHeard = Moment.zero
    /// When a snapshot was last asked for (asked again after a second).
    var snapshotAsked: Moment?
    /// Whether this node listens to the room's publications.
    var subscribed = false
    /// Connections that register once the view is synced.
    var awaitingSync: [Connection] = []
    /// This node stepped down as the room's owner and has not absorbed the next
    /// owner's snapshot yet: its members' messages are refused here meanwhile.
    var awaitingOwner = false
    /// How many times this node may have missed an answer for the room: a
    /// publication skipped (a gap, the subscriber reconnected), a relayed
    /// message whose PUBLISH was lost, a step-down with turns in flight. A
    /// message relayed before the last doubt and never answered is refused
    /// `unknown` (it may have been applied), after it `unavailable`.
    var doubt = 0
    /// The answers (acks, rejects, admissions) of a new owner's first delta,
    /// which comes just before its first snapshot and cannot be absorbed
    /// without it: taken in right after that snapshot, so that none is missed.
    var answersBeforeSnapshot: (epoch: Int, sequence: Int, delta: RoomDelta)?
    /// Writes over HTTP (their `set` and `seq`) sent once the view is synced,
    /// so that the publication carrying their ack cannot pass this node by.
    var apiAwaitingSync: [(bytes: [UInt8], seq: Int)] = []

    // MARK: the authority (while this node owns the room)

    /// The room that applies every message, when this node holds the lease.
    var authority: RoomAuthority?
    /// This node's lease epoch and its value in Redis (`NODE EPOCH`).
    var epoch = 0
    var holder = ""
    /// Publications made in this epoch.
    var sequence = 0
    /// What this turn owes members: acks, rejects, admissions.
    var acks: [MemberAck] = []
    var rejects: [Reject] = []
    var admitted: [Admission] = []
    /// This turn's commits, written with its publication.
    var commits: [StoredCommit] = []
    /// A view asked for a snapshot: published after this turn's delta.
    var snapshotWanted = false
    /// The states after the last written commit and the log rows since the
    /// last timeline snapshot (ReplicatedRooms+Timeline.swift); `nil`: none yet
    /// in this ownership, so the next committing turn writes one.
    var timelineStates: [String: ControlState]?
    var timelineRows = 0
    /// Whether the authority changed this turn (listed in `Cluster.dirty`).
    var dirty = false
    /// An acquire or a load is under way.
    var acquiring = false
    /// Until when the lease is surely this node's: the moment the last
    /// acquire or renewal that Redis granted was sent, plus 90 % of the lease
    /// (Redis counts the lease from when it ran the script, which is later;
    /// the 10 % is for clocks running at different rates). Past it the owner
    /// applies nothing and steps down (ReplicatedRooms+Answers.swift).
    var leaseSureUntil = Moment.zero
    /// The turns written but not yet answered by Redis, oldest first: what
    /// each owes this node's members if it fails.
    var inFlight: [TurnOwed] = []
    /// When the lease was last renewed, and when this node last published.
    var lastRenewal = Moment.zero
    var lastPublished = Moment.zero
    /// The count the last publication carried.
    var publishedPresent = -1
    /// When the authority last told the members how many people are present.
    var presenceRefresh = PresenceRefresh()
    /// Since when nobody is in the room (the lease is given up after a while).
    var emptySince: Moment?

    /// Whether this node owns the room.
    var owned: Bool { authority != nil }

    /// Forgets the authority and what its turn owed: the lease is lost or given up.
    func dropAuthority() {
        authority = nil
        epoch = 0
        holder = ""
        sequence = 0
        publishedPresent = -1
        acks = []
        rejects = []
        admitted = []
        commits = []
        snapshotWanted = false
        timelineStates = nil
        timelineRows = 0
        emptySince = nil
        leaseSureUntil = .zero
    }
}

/// What one turn of an owner owes, kept until Redis answers its write: the
/// acks and rejects it carries, and whether it wrote commits (then, when the
/// write fails with no answer, its outcome is not known).
struct TurnOwed {
    var epoch: Int
    var sequence: Int
    var acks: [MemberAck]
    var rejects: [Reject]
    var commits: Int
}
