import TandemCore
import TandemOSC
import TandemOSCLink

// Arbitrary bytes as one UDP datagram to the OSC bridge. Properties:
// - nothing crashes, traps or leaks (ASan), in our code or in liblo's parsing;
// - a datagram that fails fails as `malformed` or `wrong_type`, with a sentence;
// - every message of one that decodes, encoded again by liblo, decodes to
//   itself (NaNs compared by their bits), alone;
// - each message then becomes a request or a drop for the demo room, the
//   room of every kind and a room whose ids clash with the room's own addresses,
//   and a drop has a sentence.

@_cdecl("LLVMFuzzerTestOneInput")
public func oscPacketFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let messages: [OSCMessage]
    switch OSCPacket.decode(UnsafeRawBufferPointer(start: data, count: size)) {
    case let .success(decoded):
        messages = decoded
    case let .failure(drop):
        require(drop.kind == .malformed || drop.kind == .wrongType, "a datagram dropped as \(drop.label): \(drop.reason)")
        require(!drop.reason.isEmpty, "a datagram dropped as \(drop.label) without a sentence")
        return 0
    }
    for message in messages {
        let again = OSCPacket.decode(OSCPacket.encode(message))
        guard case let .success(decoded) = again, decoded.count == 1, same(decoded[0], message) else {
            fatalError("fuzz property broken: \(message) encoded decodes as \(again)")
        }
        for schema in schemas {
            if case let .failure(drop) = OSCIn.request(message, schema: schema) {
                require(!drop.reason.isEmpty, "\(message) dropped as \(drop.label) without a sentence")
            }
        }
    }
    return 0
}

/// Equal, but a NaN equals a NaN of the same bits.
private func same(_ a: OSCMessage, _ b: OSCMessage) -> Bool {
    a.address == b.address && a.arguments.count == b.arguments.count
        && zip(a.arguments, b.arguments).allSatisfy { x, y in
            switch (x, y) {
            case let (.float(p), .float(q)): p.bitPattern == q.bitPattern
            case let (.double(p), .double(q)): p.bitPattern == q.bitPattern
            default: x == y
            }
        }
}

private let schemas: [RoomSchema] = [RoomSchema.demo, everyKind, clashing]

/// The OSC tests' room of every kind (Tests/TandemTestSupport/EveryKindRoom.swift, compiled in by build.sh).
private let everyKind = EveryKindRoom.schema

/// Controls named like the room's own addresses.
private let clashing: RoomSchema = try! RoomSchema(validating: RoomDefinition(id: "clash", controls: [
    ControlDefinition(id: "dump", type: "slider", min: 0, max: 1),
    ControlDefinition(id: "name", type: "slider", min: 0, max: 1),
    ControlDefinition(id: "step", type: "slider", min: 0, max: 10, step: 1),
]))
