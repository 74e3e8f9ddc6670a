import TandemCore

/// What a node keeps of each of its members in a replicated room, whose
/// messages go to the room's owner (ReplicatedRooms+Members.swift,
/// +Answers.swift): what it registered with, whether the owner admitted it,
/// and its messages waiting for the owner's answer. Held by the member's
/// `Connection` (`relay`), which only the replicated rooms read it from.
struct MemberRelay {
    /// The name and role it joined with, for its registration with the room's owner (again after an owner change).
    var joinName = ""
    var joinRole = Role.editor
    /// Its `?since=`, for the welcome that follows its admission.
    var since: String?
    /// Whether it was registered with an owner (its leave is then relayed).
    var registered = false
    /// The owner epoch whose admission of it this node saw (-1: none yet), and
    /// when it last registered: a member the current owner never admitted (its
    /// registration was lost) registers again (`Server.reregisterLost`).
    var admittedEpoch = -1
    var registeredAt = Moment.zero
    /// Its messages relayed to the owner and not yet answered, oldest first
    /// (at most `MemberRelay.relayedLimit`; past it a message is refused
    /// `unavailable` here): the `ack` its frames carry stays below the first
    /// (`Room.holdAck`), and each gets its answer from the owner, or from this
    /// node when the owner changed or fell silent (ReplicatedRooms+Answers.swift).
    var relayed: [RelayedMessage] = []
    static let relayedLimit = 256
    /// The `seq`s this node refused itself (`unavailable`): a reject for one
    /// of them from the owner as well is not sent twice.
    var refusedLocally: Set<Int> = []
    /// The room's rate limit, enforced by this node before relaying: a
    /// flooding client costs its own node, never Redis or the owner.
    var bucket = TokenBucket(burst: RoomLimits().burst)
}

/// A member's message on its way to the room's owner.
struct RelayedMessage {
    var seq: Int
    /// The owner epoch it was sent toward: this node's own when it owned the room, else its view's.
    var epoch: Int
    /// The room's doubt count when it was relayed (`RoomReplica.doubt`): a later
    /// doubt means its answer may have been missed.
    var doubt: Int
    /// When it was relayed: unanswered past `Server.answerTimeout`, it is answered `unknown` here.
    var at: Moment
}
