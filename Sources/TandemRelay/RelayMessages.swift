import TandemCore

/// What a node sends to the owner of a room (channel `tandem:{ROOM}:in`):
/// its members' doings, relayed in the order they happened.
public enum RelayRequest: Sendable, Hashable {
    /// A member on node `node` joins, or re-registers with a new owner (`ack`: its last processed seq).
    case register(node: String, client: ClientID, name: String, role: Role, ack: Int)
    /// A member's connection closed.
    case leave(client: ClientID)
    /// A member's text message, raw as the client sent it (the owner decodes and validates it itself).
    case message(client: ClientID, bytes: [UInt8])
    /// A message the member's node handled itself (a token refresh): the owner only acknowledges `seq`.
    case acknowledge(client: ClientID, seq: Int)
    /// A node missed something (or is new): the owner publishes a snapshot.
    case wantSnapshot(node: String)
}

/// What the owner of a room publishes (channel `tandem:{ROOM}:out`).
///
/// `epoch` is the owner's lease epoch, `sequence` counts the owner's
/// publications in that epoch from 1: a view that sees a gap (or a new epoch
/// without a snapshot) asks for a snapshot.
public enum RelayPublication: Sendable, Hashable {
    case delta(epoch: Int, sequence: Int, owner: String, RoomDelta)
    case snapshot(epoch: Int, sequence: Int, owner: String, RoomSnapshot)

    /// The owner's lease epoch.
    public var epoch: Int {
        switch self {
        case let .delta(epoch, _, _, _), let .snapshot(epoch, _, _, _): epoch
        }
    }

    /// The publication's number in its epoch, from 1.
    public var sequence: Int {
        switch self {
        case let .delta(_, sequence, _, _), let .snapshot(_, sequence, _, _): sequence
        }
    }

    /// The node that published it.
    public var owner: String {
        switch self {
        case let .delta(_, _, owner, _), let .snapshot(_, _, owner, _): owner
        }
    }

    /// Its kind byte on the wire (`RelayCodec.deltaKind` or `RelayCodec.snapshotKind`), as `peekPublication` returns it.
    public var kind: UInt8 {
        switch self {
        case .delta: RelayCodec.deltaKind
        case .snapshot: RelayCodec.snapshotKind
        }
    }
}

/// Why bytes are not a relay message: what is wrong, and at which byte of the input.
public struct RelayDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset in the input where the faulty item starts (or where the input ran out).
    public var offset: Int
    /// What is wrong, naming the field.
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "relay: \(reason) at byte \(offset)" }
}
