import TandemCore
import TandemWire

// Arbitrary bytes as a room file or an admin API body. Properties:
// - the bytes become a valid `RoomSchema` or a `SchemaError`, never a crash;
// - the room `POST /api/rooms` authorises (`RoomBody.room`) is the room it
//   applies, and both are the room the documented rule names, read here from
//   the bare JSON: after a byte order mark, the last non-null "id", else the
//   last non-null "room" (a scoped admin once left its rooms when a first
//   parse and the decoder disagreed);
// - every shown text of the schema is clean (NFC, no bidi controls) and
//   within its caps in characters and in bytes;
// - a valid schema builds a `Room` whose initial states (committed and
//   displayed) keep every invariant, at revision 0;
// - the room's snapshot (what `GET /api/rooms/{room}` answers) is valid JSON
//   that reads back as the same schema, as SchemaDecoder's contract promises;
// - one person pushing every thumb to both ends and stepping it both ways
//   keeps every invariant on the fuzzed controls, and a gauge refuses drags.

@_cdecl("LLVMFuzzerTestOneInput")
public func schemaDecoderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let schema: RoomSchema
    do {
        let body = try RoomBody(bytes)
        require(body.room == body.schema.id, "authorised \(body.room), applies \(body.schema.id)")
        require(body.room == documentedRoom(bytes), "authorised \(body.room), the rule names \(documentedRoom(bytes) ?? "none")")
        schema = body.schema
    } catch {
        require(!error.description.isEmpty && !error.problem.explanation.isEmpty, "a schema error that says nothing: \(error)")
        return 0
    }
    requireWellFormed(schema)
    requireCleanText(schema)
    var room = Room(schema: schema)
    require(room.revision == 0, "a new room at revision \(room.revision)")
    for (i, control) in schema.controls.enumerated() {
        require(room.committed[i] == control.initial, "\(control.id) starts at \(room.committed[i]), not its initial \(control.initial)")
        requireValid(room.committed[i], of: control, "initial state")
        requireValid(room.displayed(i), of: control, "initial displayed state")
    }
    requireSnapshotRoundTrip(room)
    pushEveryThumb(&room)
    return 0
}

private func requireWellFormed(_ schema: RoomSchema) {
    require(RoomSchema.isValidID(schema.id), "room id \(schema.id)")
    require(!schema.controls.isEmpty, "a room without controls")
    require(Set(schema.controls.map(\.id)).count == schema.controls.count, "duplicate control ids")
    for control in schema.controls {
        require(RoomSchema.isValidID(control.id), "control id \(control.id)")
        switch control.kind {
        case let .slider(math):
            require(math.min.isFinite && math.max.isFinite && math.min < math.max, "slider bounds \(math.min)...\(math.max)")
            if let step = math.step { require(step > 0 && step.isFinite, "slider step \(step)") }
        case let .snap(spec):
            require(!spec.values.isEmpty, "a snap without values")
            require(zip(spec.values, spec.values.dropFirst()).allSatisfy { $0 < $1 }, "snap values \(spec.values) not ascending")
        case let .range(math):
            require(math.scale.lowerBound < math.scale.upperBound, "range scale \(math.scale)")
            require(math.minGap >= 0 && math.operable.upperBound - math.operable.lowerBound >= math.minGap,
                    "range operable \(math.operable) narrower than minGap \(math.minGap)")
        case let .color(step):
            if let step { require(step > 0 && step <= 1, "colour step \(step)") }
        case let .gauge(math):
            require(math.min.isFinite && math.max.isFinite && math.min < math.max, "gauge bounds \(math.min)...\(math.max)")
        case let .xy(spec):
            for axis in [spec.x.math, spec.y.math] {
                require(axis.min.isFinite && axis.max.isFinite && axis.min < axis.max, "xy axis bounds \(axis.min)...\(axis.max)")
            }
        case .toggle, .button:
            break
        }
    }
}

private func requireSnapshotRoundTrip(_ room: Room) {
    let body = OutboundEncoder.welcome(room.snapshot)
    require((try? JSONParser.parse(body)) != nil, "the snapshot is not JSON: \(String(decoding: body, as: UTF8.self))")
    do {
        let reread = try RoomSchema(validating: try SchemaDecoder.room(body))
        require(reread == room.schema, "the snapshot reads back as another schema:\n\(room.schema)\n\(reread)")
    } catch {
        require(false, "the snapshot does not read back: \(error)\n\(String(decoding: body, as: UTF8.self))")
    }
}

/// Every thumb dragged to 0 and to 1 (from `at` and from `dx`), set to the ends and stepped
/// both ways, by one editor, with the invariants checked after each message.
private func pushEveryThumb(_ room: inout Room) {
    let now = Moment.seconds(1)
    _ = room.join("c1", name: "fuzz", at: now)
    var seq = 0
    func send(_ operation: Operation) -> [Effect] {
        seq += 1
        let effects = room.apply(ClientMessage(seq: seq, operation), from: "c1", at: now)
        for (i, control) in room.schema.controls.enumerated() {
            requireValid(room.committed[i], of: control, "after \(operation)")
            requireValid(room.displayed(i), of: control, "displayed after \(operation)")
        }
        return effects
    }
    for control in room.schema.controls {
        if control.thumbs.isEmpty {
            let effects = send(.drag(control: control.id, thumb: nil, phase: .begin, pointer: nil))
            require(effects.contains { if case let .reject(r) = $0 { r.code == .readOnly } else { false } }, "a gauge took a drag")
            for x in [-1e308, 0, 1e308] { _ = send(.set(control: control.id, thumb: nil, value: .number(x))) }
            continue
        }
        for thumb in control.thumbs.map(\.rawValue) {
            for f in [0.0, 1.0, 0.5] {
                _ = send(.drag(control: control.id, thumb: thumb, phase: .begin, pointer: .at(f)))
                _ = send(.drag(control: control.id, thumb: thumb, phase: .end, pointer: nil))
                _ = send(.drag(control: control.id, thumb: thumb, phase: .begin, pointer: nil))
                _ = send(.drag(control: control.id, thumb: thumb, phase: .move, pointer: .dx(f - 0.5)))
                _ = send(.drag(control: control.id, thumb: thumb, phase: .end, pointer: .dx(2 * f - 1)))
            }
            for x in [-1e308, -1, 0, 0.5, 1, 1e308] { _ = send(.set(control: control.id, thumb: thumb, value: .number(x))) }
            for n in [1.0, -1, 1e15, -1e15] { _ = send(.step(control: control.id, thumb: thumb, by: n)) }
            // The pad's two-axis forms (refused by one-axis controls).
            _ = send(.drag(control: control.id, thumb: thumb, phase: .begin, pointer: .at(0.25, y: 0.75)))
            _ = send(.drag(control: control.id, thumb: thumb, phase: .end, pointer: .dx(0.5, dy: -2)))
            _ = send(.step(control: control.id, thumb: thumb, by: 1e15, byY: -1))
            _ = send(.set(control: control.id, thumb: thumb, value: .point(x: -1e308, y: 1e308)))
            _ = send(.set(control: control.id, thumb: thumb, value: .flag(true)))
            _ = send(.undo)
            _ = send(.redo)
        }
    }
}

/// The room a body names by the decoder's documented rule, read from the bare
/// JSON without SchemaDecoder: a byte order mark skipped, the last "id" that is
/// not null, else the last "room" that is not null.
private func documentedRoom(_ bytes: [UInt8]) -> String? {
    let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    guard case let .object(members)? = try? JSONParser.parse(body) else { return nil }
    func last(_ key: String) -> String? {
        for member in members.reversed() where member.key == key && member.value != .null {
            if case let .string(s) = member.value { return s }
            return nil
        }
        return nil
    }
    return last("id") ?? last("room")
}

private func requireCleanText(_ schema: RoomSchema) {
    func clean(_ text: String, _ cap: Int, _ what: String) {
        require(ShownText.clean(text) == text && Array(ShownText.clean(text).utf8) == Array(text.utf8), "\(what) not clean: \(Array(text.unicodeScalars))")
        require(text.utf8.count <= ShownText.byteCap(characters: cap), "\(what) has \(text.utf8.count) bytes, over \(ShownText.byteCap(characters: cap))")
    }
    let caps = SchemaCaps.standard
    if schema.title != schema.id { clean(schema.title, caps.title, "title") }
    for control in schema.controls {
        if control.label != control.id { clean(control.label, caps.label, "label of \(control.id)") }
        if let group = control.group { clean(group, caps.group, "group of \(control.id)") }
        if let description = control.description { clean(description, caps.description, "description of \(control.id)") }
    }
}
