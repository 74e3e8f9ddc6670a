/// A node's view of a room in a cluster (docs/scale-out.md): it changes only
/// by what the owner's `RoomAuthority` publishes, and gives this node's
/// members their frames and welcomes exactly as a standalone room does.
///
/// A `Room` in the view role: only what a view may do is here, and the room
/// inside is read-only from outside, so applying a message to a view, or
/// joining a member to it, does not compile.
public struct RoomView: Sendable {
    /// The room as the view shows it, to read.
    public private(set) var room: Room

    /// A view of a room as the cluster's store has it, with who made each
    /// control's last commit; it has no members until its authority admits them.
    public init(schema: RoomSchema, committed: [ControlState], revisions: [Int], revision: Int,
                committedBy: [ClientID?], limits: RoomLimits = RoomLimits()) {
        room = Room(schema: schema, committed: committed, revisions: revisions, revision: revision,
                    committedBy: committedBy, limits: limits)
        room.mode = .view
    }

    // MARK: following the authority (Room+View.swift, Room+Resync.swift)

    /// Takes in what the authority published after a turn.
    public mutating func absorb(_ delta: RoomDelta, isLocal: (ClientID) -> Bool) {
        room.absorb(delta, isLocal: isLocal)
    }

    /// Shows `snapshot`, changing only what differs.
    public mutating func absorb(_ snapshot: RoomSnapshot, isLocal: (ClientID) -> Bool) {
        room.absorb(snapshot, isLocal: isLocal)
    }

    /// A local member's connection closed: it stops being served here.
    public mutating func dropLocal(_ client: ClientID) { room.dropLocal(client) }

    /// Limits the `ack` `client`'s frames carry to below `seq`.
    public mutating func holdAck(_ client: ClientID, below seq: Int?) { room.holdAck(client, below: seq) }

    /// A refusal this node makes itself (its own rate limit, `unavailable`).
    public mutating func refuse(_ client: ClientID, seq: Int?, code: RejectCode, message: String) -> [Effect] {
        room.refuse(client, seq: seq, code: code, message: message)
    }

    // MARK: frames (Conflation/)

    public mutating func nextFrame(for client: ClientID) -> Frame? { room.nextFrame(for: client) }

    public mutating func openRound() -> RoundUpdate? { room.openRound() }

    public mutating func share(of round: RoundUpdate, for client: ClientID) -> RoundShare {
        room.share(of: round, for: client)
    }

    public mutating func share(of round: RoundUpdate, for client: ClientID, slot: inout Int) -> RoundShare {
        room.share(of: round, for: client, slot: &slot)
    }
}
