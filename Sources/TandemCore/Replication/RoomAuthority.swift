/// The owner's room in a cluster (docs/scale-out.md): it applies every
/// member's message, whichever node serves the member, and publishes what
/// changed to the views. Its members take no frames from it; they get them
/// from their node's `RoomView`.
///
/// A `Room` in the authority role: only what an owner may do is here, and
/// the room inside is read-only from outside, so a frame taken from the
/// authority, or a delta absorbed into it, does not compile.
public struct RoomAuthority: Sendable {
    /// The room as the authority holds it, to read.
    public private(set) var room: Room

    /// The authority of a room as the cluster's store has it, with who made
    /// each control's last commit.
    public init(schema: RoomSchema, committed: [ControlState], revisions: [Int], revision: Int,
                committedBy: [ClientID?], limits: RoomLimits = RoomLimits()) {
        room = Room(schema: schema, committed: committed, revisions: revisions, revision: revision,
                    committedBy: committedBy, limits: limits)
        room.mode = .authority
    }

    public var id: String { room.id }
    public var schema: RoomSchema { room.schema }
    public var revision: Int { room.revision }

    // MARK: members' messages (Room+Apply.swift, Room+Presence.swift)

    public mutating func apply(_ message: ClientMessage, from client: ClientID, at now: Moment) -> [Effect] {
        room.apply(message, from: client, at: now)
    }

    /// Takes in a member served by any node (see `Room.register`).
    public mutating func register(_ client: ClientID, name: String, role: Role, ack: Int, at now: Moment) -> (Admission, [Effect]) {
        room.register(client, name: name, role: role, ack: ack, at: now)
    }

    public mutating func leave(_ client: ClientID, at now: Moment) -> [Effect] { room.leave(client, at: now) }

    public mutating func acknowledge(_ client: ClientID, seq: Int, at now: Moment) -> [Effect] {
        room.acknowledge(client, seq: seq, at: now)
    }

    public mutating func refuse(_ client: ClientID, seq: Int?, code: RejectCode, message: String) -> [Effect] {
        room.refuse(client, seq: seq, code: code, message: message)
    }

    public mutating func expire(at now: Moment) -> [Effect] { room.expire(at: now) }

    public mutating func refreshPresence() { room.refreshPresence() }

    // MARK: publishing (Room+Authority.swift)

    /// What changed since the previous delta, for the views.
    public mutating func publishDelta() -> RoomDelta { room.publishDelta() }

    /// The whole visible room, for a view to start from or resynchronise to.
    public var snapshotForViews: RoomSnapshot { room.snapshotForViews }

    /// How the room took `client`, if it is a member.
    public func admission(of client: ClientID) -> Admission? { room.admission(of: client) }
}

extension RoomAuthority: RoomWriting {
    public mutating func admitWrite(_ client: ClientID, seq: Int, cost: Double, at now: Moment) -> (admitted: Bool, effects: [Effect]) {
        room.admitWrite(client, seq: seq, cost: cost, at: now)
    }

    public mutating func applyAdmitted(_ message: ClientMessage, from client: ClientID, at now: Moment) -> [Effect] {
        room.applyAdmitted(message, from: client, at: now)
    }
}
