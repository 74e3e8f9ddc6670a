import TandemCore
import TandemRelay

// Arbitrary bytes as a Redis payload between nodes. Properties:
// - nothing crashes, traps or leaks (ASan), whatever the bytes; a refusal's
//   offset lies inside the input;
// - a request that decodes is exactly its own encoding (one encoding each:
//   minimal varints, exact tags, UTF-8 kept byte for byte);
// - a publication that decodes, in the demo room or a room of every kind,
//   encodes to bytes that decode to it again (states may have come as other
//   JSON spellings of the same value, so the input's bytes may differ), every
//   control index, id, thumb and state in it is legal for the schema, and
//   `peekPublication` reads the header `decodePublication` read.

@_cdecl("LLVMFuzzerTestOneInput")
public func relayCodecFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkRequest(bytes)
    for schema in [RoomSchema.demo, everyKind] {
        checkPublication(bytes, schema: schema)
    }
    return 0
}

/// The relay tests' room of every kind (Tests/TandemRelayTests/Support/RelayFixtures.swift), so their seeds decode here.
private let everyKind: RoomSchema = try! RoomSchema(validating: RoomDefinition(id: "every-kind", controls: [
    ControlDefinition(id: "gain", type: "slider", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.5)),
    ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
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

private func checkRequest(_ bytes: [UInt8]) {
    do {
        let request = try RelayCodec.decodeRequest(bytes)
        let encoded = RelayCodec.encode(request)
        require(encoded == bytes, "request \(request) encodes as \(encoded), not as the \(bytes.count) bytes it came from")
    } catch {
        require(error.offset >= 0 && error.offset <= bytes.count, "request refusal offset outside \(bytes.count) bytes: \(error)")
    }
}

private func checkPublication(_ bytes: [UInt8], schema: RoomSchema) {
    let publication: RelayPublication
    do {
        publication = try RelayCodec.decodePublication(bytes, schema: schema)
    } catch {
        require(error.offset >= 0 && error.offset <= bytes.count, "publication refusal offset outside \(bytes.count) bytes: \(error)")
        return
    }
    let encoded = RelayCodec.encode(publication)
    let again = try? RelayCodec.decodePublication(encoded, schema: schema)
    require(again == publication, "\(publication) encoded decodes as \(String(describing: again))")
    require(again.map(RelayCodec.encode) == encoded, "encoding a publication is not a fixed point")
    let header = try? RelayCodec.peekPublication(bytes)
    require(header?.kind == publication.kind && header?.epoch == publication.epoch && header?.sequence == publication.sequence
                && header?.owner == publication.owner,
            "peek read \(String(describing: header)), decode read \(publication.kind) \(publication.epoch) \(publication.sequence) \(publication.owner)")
    switch publication {
    case let .delta(_, _, _, delta):
        for change in delta.changes { requireLegal(change.controlIndex, change.control, nil, change.state, in: schema) }
        for entry in delta.gestures { requireLegal(entry.controlIndex, entry.control, entry.thumb, entry.state, in: schema) }
    case let .snapshot(_, _, _, snapshot):
        require(snapshot.controls.count == schema.controls.count, "a snapshot of \(snapshot.controls.count) controls")
        for (index, control) in snapshot.controls.enumerated() {
            requireLegal(index, schema.controls[index].id, nil, control.state, in: schema)
        }
        for entry in snapshot.gestures { requireLegal(entry.controlIndex, entry.control, entry.thumb, entry.state, in: schema) }
    }
}

private func requireLegal(_ index: Int, _ id: String, _ thumb: Thumb?, _ state: ControlState, in schema: RoomSchema) {
    require(schema.controls.indices.contains(index) && schema.controls[index].id == id, "control \(index) \(id) is not the room's")
    let control = schema.controls[index]
    if let thumb { require(control.has(thumb), "thumb \(thumb) is not \(id)'s") }
    require(control.isValid(state), "\(state) is not a legal state of \(id)")
}
