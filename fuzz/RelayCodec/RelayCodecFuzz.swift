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

/// The relay tests' room of every kind (Tests/TandemTestSupport/EveryKindRoom.swift, compiled in by build.sh), so their seeds decode here.
private let everyKind = EveryKindRoom.relay

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
