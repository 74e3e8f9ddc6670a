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

/// The OSC tests' room of every kind (Tests/TandemOSCTests/Fixtures.swift).
private let everyKind: RoomSchema = try! RoomSchema(validating: RoomDefinition(id: "every-kind", controls: [
    ControlDefinition(id: "gain", type: "slider", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.5)),
    ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
    ControlDefinition(id: "free", type: "slider", min: -3, max: 7),
    ControlDefinition(id: "size", type: "snap", values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt",
                      state: StateDefinition(index: 2), labels: ["xs", "s", "m", "l", "xl"]),
    ControlDefinition(id: "blanks", type: "range", scale: [0, 9], operable: [0, 3], minGap: 1,
                      state: StateDefinition(lower: 0, upper: 1)),
    ControlDefinition(id: "color", type: "color", step: 1.0 / 255, state: StateDefinition(hex: "#336699")),
    ControlDefinition(id: "tint", type: "color", commit: "live"),
    ControlDefinition(id: "bpm", type: "gauge", min: 0, max: 170, state: StateDefinition(value: 67)),
    ControlDefinition(id: "filter", type: "toggle"),
    ControlDefinition(id: "pad", type: "xy", x: AxisDefinition(min: -1, max: 1, step: 0.25),
                      y: AxisDefinition(min: 20, max: 20000, scale: "log")),
    ControlDefinition(id: "grid", type: "xy", x: AxisDefinition(min: 0, max: 10, step: 1),
                      y: AxisDefinition(min: 0, max: 10, step: 1)),
    ControlDefinition(id: "go", type: "button"),
]))

/// Controls named like the room's own addresses.
private let clashing: RoomSchema = try! RoomSchema(validating: RoomDefinition(id: "clash", controls: [
    ControlDefinition(id: "dump", type: "slider", min: 0, max: 1),
    ControlDefinition(id: "name", type: "slider", min: 0, max: 1),
    ControlDefinition(id: "step", type: "slider", min: 0, max: 10, step: 1),
]))
