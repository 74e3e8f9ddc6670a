import TandemCore
import TandemWire

/// The binary format of the messages between the nodes of a cluster
/// (docs/relay-format.md), carried as Redis pub/sub payloads.
///
/// A message is the magic-and-version byte `0xE3`, a kind byte, then the
/// kind's fields in the order below; nothing may follow the last field.
///
/// | item      | encoding                                                              |
/// |-----------|-----------------------------------------------------------------------|
/// | `uint`    | unsigned LEB128: 7 bits a byte, low first; 1–10 bytes, minimal         |
/// | `int`     | zig-zag (0, -1, 1, -2 → 0, 1, 2, 3), then as `uint`                    |
/// | `bool`    | one byte, 0 or 1                                                       |
/// | `string`  | `uint` length (≤ 1 MiB), then that many bytes of valid UTF-8           |
/// | `bytes`   | `uint` length (≤ 1 MiB), then that many bytes                          |
/// | `client?` | `0` (none), or `1` then a `string`                                     |
/// | `state`   | `bytes`: the state's wire JSON (`JSONWriter.append(state:)`)           |
/// | `tag`     | one byte: a role, thumb, phase or reject code (RelayTags.swift)        |
/// | `peer`    | `string` client, `string` name, `string` color, then `0`, or `1` and a `string` focus |
/// | `[T]`     | `uint` count (≤ 1,000,000), then each `T`                              |
///
/// | kind   | message       | fields                                                                |
/// |--------|---------------|-----------------------------------------------------------------------|
/// | `0x01` | register      | `string` node, `string` client, `string` name, `tag` role, `int` ack  |
/// | `0x02` | leave         | `string` client                                                       |
/// | `0x03` | message       | `string` client, `bytes` the client's text frame                      |
/// | `0x04` | acknowledge   | `string` client, `int` seq                                            |
/// | `0x05` | wantSnapshot  | `string` node                                                         |
/// | `0x11` | delta         | header; `int` revision, `[change]`, `[gesture]`, `[peer]` joined, `[string]` left, `int` present, `bool` presenceRefreshed, `[ack]`, `[reject]`, `[admission]`, `bool` + batch note |
/// | `0x12` | snapshot      | header; `int` revision, `[control]`, `[gesture]`, `[peer]` peers, `int` present |
///
/// | part        | fields                                                                            |
/// |-------------|-----------------------------------------------------------------------------------|
/// | header      | `int` epoch, `int` sequence, `string` owner                                       |
/// | change      | `int` control index, `string` control id, `state`, `int` revision, `client?` by, `client?` claim |
/// | gesture     | `int` control index, `string` control id, `tag` thumb, `string` by, `tag` phase, `state` |
/// | ack         | `string` client, `int` seq                                                        |
/// | reject      | `string` to, `int` seq, `tag` code, `string` message, `client?` holder            |
/// | admission   | `peer`, `tag` role, `bool` announced, `int` ack                                   |
/// | control     | `state`, `int` revision, `client?` by, `client?` claim — one per schema control, in schema order |
///
/// Every `Int` of the messages is an `int` (zig-zag), so any value encodes;
/// only lengths and counts are `uint`. A change's `stamp` is not carried
/// (decoded as 0). Publications are checked against the room's schema: a
/// control index in range naming the control of that id, a gesture's thumb
/// one of its control's, and every state legal for its control (the same
/// check a client makes of a server's states, `StateValidator.check`). The
/// only doubles are inside states, which JSON carries exactly (shortest
/// round-trip form); NaN and infinities have no JSON form and are refused
/// (no legal state has them).
public enum RelayCodec {
    /// The first byte of every message: relay format, version 3 (version 2,
    /// `0xE2`, had no batch note in deltas; version 1, `0xE1`, no claims in
    /// changes and controls, nor a focus in peers). A node refuses another version's messages.
    public static let magic: UInt8 = 0xE3

    /// Kind bytes of requests.
    public static let registerKind: UInt8 = 0x01
    public static let leaveKind: UInt8 = 0x02
    public static let messageKind: UInt8 = 0x03
    public static let acknowledgeKind: UInt8 = 0x04
    public static let wantSnapshotKind: UInt8 = 0x05
    /// Kind bytes of publications (`peekPublication`'s `kind`).
    public static let deltaKind: UInt8 = 0x11
    public static let snapshotKind: UInt8 = 0x12

    // MARK: Requests

    public static func encode(_ request: RelayRequest) -> [UInt8] {
        var out = RelayWriter()
        out.byte(magic)
        switch request {
        case let .register(node, client, name, role, ack):
            out.byte(registerKind)
            out.string(node)
            out.client(client)
            out.string(name)
            out.byte(role.relayTag)
            out.signed(ack)
        case let .leave(client):
            out.byte(leaveKind)
            out.client(client)
        case let .message(client, bytes):
            out.byte(messageKind)
            out.client(client)
            out.byteString(bytes)
        case let .acknowledge(client, seq):
            out.byte(acknowledgeKind)
            out.client(client)
            out.signed(seq)
        case let .wantSnapshot(node):
            out.byte(wantSnapshotKind)
            out.string(node)
        }
        return out.bytes
    }

    public static func decodeRequest(_ bytes: [UInt8]) throws(RelayDecodeError) -> RelayRequest {
        var input = RelayReader(bytes)
        try input.magic()
        let kindAt = input.offset
        let request: RelayRequest
        switch try input.byte("the request kind") {
        case registerKind:
            request = .register(node: try input.string("register's node"), client: try input.client("register's client"),
                                name: try input.string("register's name"), role: try input.tag("register's role", Role.init(relayTag:)),
                                ack: try input.signed("register's ack"))
        case leaveKind:
            request = .leave(client: try input.client("leave's client"))
        case messageKind:
            request = .message(client: try input.client("message's client"), bytes: try input.byteString("message's bytes"))
        case acknowledgeKind:
            request = .acknowledge(client: try input.client("acknowledge's client"), seq: try input.signed("acknowledge's seq"))
        case wantSnapshotKind:
            request = .wantSnapshot(node: try input.string("wantSnapshot's node"))
        case let kind:
            throw input.error("unknown request kind \(kind)", at: kindAt)
        }
        try input.end()
        return request
    }

    // MARK: Publications

    public static func encode(_ publication: RelayPublication) -> [UInt8] {
        var out = RelayWriter(capacity: 256)
        out.byte(magic)
        out.byte(publication.kind)
        out.signed(publication.epoch)
        out.signed(publication.sequence)
        out.string(publication.owner)
        switch publication {
        case let .delta(_, _, _, delta): out.delta(delta)
        case let .snapshot(_, _, _, snapshot): out.snapshot(snapshot)
        }
        return out.bytes
    }

    /// States and gesture entries are checked against `schema` (control index in range, id matching,
    /// thumb belongs to the control, state valid for the control: `control.isValid`).
    public static func decodePublication(_ bytes: [UInt8], schema: RoomSchema) throws(RelayDecodeError) -> RelayPublication {
        var input = RelayReader(bytes)
        let header = try input.publicationHeader()
        let room = RoomReading(schema: schema)
        let publication: RelayPublication
        switch header.kind {
        case deltaKind:
            publication = .delta(epoch: header.epoch, sequence: header.sequence, owner: header.owner,
                                 try input.delta(room))
        default:
            publication = .snapshot(epoch: header.epoch, sequence: header.sequence, owner: header.owner,
                                    try input.snapshot(room))
        }
        try input.end()
        return publication
    }

    /// Just the header (kind, epoch, sequence, owner) without decoding the body, for cheap gap checks.
    public static func peekPublication(_ bytes: [UInt8]) throws(RelayDecodeError) -> (kind: UInt8, epoch: Int, sequence: Int, owner: String) {
        var input = RelayReader(bytes)
        return try input.publicationHeader()
    }
}

extension RelayReader {
    mutating func magic() throws(RelayDecodeError) {
        let b = try byte("the magic byte")
        guard b == RelayCodec.magic else {
            throw error("magic byte \(b), not \(RelayCodec.magic) (relay format 3)", at: 0)
        }
    }

    /// Magic, a publication kind, epoch, sequence and owner.
    mutating func publicationHeader() throws(RelayDecodeError) -> (kind: UInt8, epoch: Int, sequence: Int, owner: String) {
        try magic()
        let kindAt = offset
        let kind = try byte("the publication kind")
        guard kind == RelayCodec.deltaKind || kind == RelayCodec.snapshotKind else {
            throw error("unknown publication kind \(kind)", at: kindAt)
        }
        return (kind, try signed("the epoch"), try signed("the sequence"), try string("the owner"))
    }
}
