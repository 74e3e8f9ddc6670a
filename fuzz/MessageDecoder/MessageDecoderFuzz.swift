import TandemCore
import TandemWire

// Arbitrary bytes as a client's text frame. Properties:
// - nothing crashes, traps or leaks (ASan), whatever the bytes;
// - the JSON parser keeps its limits: a document deeper than `maxDepth` is
//   refused, numbers are finite, an error's offset lies inside the input;
// - JSON that parses is written back compactly (never more than 4x its size)
//   and that text parses to the same value (and writes the same bytes again);
// - a frame that decodes to a message is that message again when the message
//   is written as JSON, and its fields are in range (`seq` 1...2^53, finite
//   numbers, no pointer on a cancel); a refusal is `bad_message` or `bad_value`
//   with a usable `seq` or none, and its reject frame carries it intact;
// - the write API's body decoder holds the same way.

@_cdecl("LLVMFuzzerTestOneInput")
public func messageDecoderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkParser(bytes)
    checkDecoder(bytes)
    checkSetBody(bytes)
    return 0
}

private func checkParser(_ bytes: [UInt8]) {
    let json: JSON
    do {
        json = try JSONParser.parse(bytes)
    } catch {
        require(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside \(bytes.count) bytes: \(error)")
        return
    }
    let depth = json.depth
    require(depth <= 32, "parsed a document \(depth) deep past maxDepth 32")
    require(json.allNumbersFinite, "parsed a non-finite number: \(json)")
    if depth > 0 {
        // One level less allowed must refuse this document; exactly its depth must accept it.
        require((try? JSONParser.parse(bytes, maxDepth: depth - 1)) == nil, "maxDepth \(depth - 1) accepted a document \(depth) deep")
        require((try? JSONParser.parse(bytes, maxDepth: depth)) == json, "maxDepth \(depth) refused a document \(depth) deep")
    }
    let written = json.bytes
    require(written.count <= 4 * bytes.count + 2, "\(bytes.count) bytes of JSON written back as \(written.count)")
    guard let reread = try? JSONParser.parse(written) else {
        require(false, "the writer made invalid JSON: \(String(decoding: written, as: UTF8.self))")
        return
    }
    require(reread == json, "JSON changed on a round trip: \(json) became \(reread)")
    require(reread.bytes == written, "writing is not a fixed point: \(String(decoding: written, as: UTF8.self))")
    // The decoder on parsed JSON is the decoder on bytes.
    require(MessageDecoder.decode(json) == MessageDecoder.decode(bytes), "decode(bytes) and decode(parse(bytes)) differ")
}

private func checkDecoder(_ bytes: [UInt8]) {
    switch MessageDecoder.decode(bytes) {
    case let .message(message):
        requireInRange(message)
        let encoded = encode(message)
        let again = MessageDecoder.decode(encoded)
        require(again == .message(message),
                "\(message) written as \(String(decoding: encoded, as: UTF8.self)) decodes as \(again)")
    case let .auth(seq, token):
        require(seq >= 1 && seq <= MessageDecoder.maxSeq, "decoded auth seq \(seq)")
        // Written back with the wire's own JSON writer, it decodes to the same refresh.
        var out = JSONWriter()
        out.append(raw: "{\"type\":\"auth\",\"seq\":")
        out.append(int: seq)
        out.append(raw: ",\"token\":")
        out.append(string: token)
        out.append(raw: "}")
        let again = MessageDecoder.decode(out.bytes)
        require(again == .auth(seq: seq, token: token), "auth \(seq) written back decodes as \(again)")
    case let .restore(seq, revision):
        require(seq >= 1 && seq <= MessageDecoder.maxSeq && revision >= 0 && revision <= MessageDecoder.maxSeq,
                "decoded restore seq \(seq) rev \(revision)")
        let again = MessageDecoder.decode(Array("{\"type\":\"restore\",\"seq\":\(seq),\"rev\":\(revision)}".utf8))
        require(again == .restore(seq: seq, revision: revision), "restore \(seq) \(revision) written back decodes as \(again)")
    case let .preset(seq, request):
        // A decoded name is already clean: written back, it decodes to the same request.
        require(seq >= 1 && seq <= MessageDecoder.maxSeq, "decoded preset seq \(seq)")
        require(PresetName.clean(request.name) == .success(request.name), "preset name '\(request.name)' is not clean")
        var out = JSONWriter()
        out.append(raw: "{\"type\":\"preset\",\"seq\":")
        out.append(int: seq)
        out.append(raw: ",\"action\":")
        out.append(string: request.action)
        out.append(raw: ",\"name\":")
        out.append(string: request.name)
        if case let .rename(_, to) = request {
            out.append(raw: ",\"to\":")
            out.append(string: to)
        }
        out.append(raw: "}")
        let again = MessageDecoder.decode(out.bytes)
        require(again == .preset(seq: seq, request), "preset \(request) written back decodes as \(again)")
    case let .refused(seq, code, text):
        require(code == .badMessage || code == .badValue, "the wire refused with \(code)")
        if let seq { require(seq >= 1 && seq <= MessageDecoder.maxSeq, "refusal carries seq \(seq)") }
        require(!text.isEmpty, "a refusal without a message")
        // The reject frame the server answers with carries the refusal intact.
        let frame = OutboundEncoder.reject(Reject(to: "c1", seq: seq ?? 0, code: code, message: text))
        let json = try? JSONParser.parse(frame)
        require(json?["seq"] == seq.map { .number(Double($0)) } ?? .null && json?["code"] == .string(code.rawValue)
                    && json?["message"] == .string(text),
                "the reject frame \(String(decoding: frame, as: UTF8.self)) does not carry \(String(describing: seq)) \(code) \(text)")
    }
}

private func checkSetBody(_ bytes: [UInt8]) {
    switch MessageDecoder.decodeSetBody(bytes, control: "gain", seq: 7) {
    case let .message(message):
        require(message.seq == 7, "a set body got seq \(message.seq)")
        guard case let .set(control, _, _) = message.operation else {
            require(false, "a set body decoded as \(message.operation)")
            return
        }
        require(control == "gain", "a set body named control \(control)")
    case .auth, .restore, .preset:
        require(false, "a set body decoded as an auth, restore or preset message")
    case let .refused(seq, code, _):
        require(seq == 7, "a set body's refusal has seq \(String(describing: seq))")
        require(code == .badMessage || code == .badValue, "a set body refused with \(code)")
    }
}

private func requireInRange(_ message: ClientMessage) {
    require(message.seq >= 1 && message.seq <= MessageDecoder.maxSeq, "decoded seq \(message.seq)")
    switch message.operation {
    case let .drag(_, _, phase, pointer):
        if phase == .cancel { require(pointer == nil, "a cancel decoded with \(String(describing: pointer))") }
        switch pointer {
        case let .dx(x, dy)?: require(x.isFinite && dy.isFinite, "pointer \(x), \(dy)")
        case let .at(x, y)?: require(x.isFinite && (y?.isFinite ?? true), "pointer \(x), \(String(describing: y))")
        case nil: break
        }
    case let .set(_, _, .number(x)):
        require(x.isFinite, "set value \(x)")
    case let .set(_, _, .point(x, y)):
        require((x?.isFinite ?? true) && (y?.isFinite ?? true), "set point \(String(describing: x)), \(String(describing: y))")
    case let .set(_, _, .other(type)):
        require(["null", "array", "object"].contains(type), "set value of JSON type \(type)")
    case let .step(_, _, by, byY):
        require(by.isFinite && (byY?.isFinite ?? true), "step by \(by), \(String(describing: byY))")
    default:
        break
    }
}

/// `message` as a client would write it, from protocol.md's message table.
private func encode(_ message: ClientMessage) -> [UInt8] {
    var members = [JSONMember("seq", .number(Double(message.seq)))]
    func thumb(_ name: String?) -> [JSONMember] { name.map { [JSONMember("thumb", .string($0))] } ?? [] }
    switch message.operation {
    case .batch:
        fatalError("no frame decodes to a batch")
    case .undo:
        members.insert(JSONMember("type", .string("undo")), at: 0)
    case .redo:
        members.insert(JSONMember("type", .string("redo")), at: 0)
    case let .reset(control), let .focus(control):
        let type = if case .reset = message.operation { "reset" } else { "focus" }
        members.insert(JSONMember("type", .string(type)), at: 0)
        if let control { members.append(JSONMember("control", .string(control))) }
    case let .claim(control), let .release(control):
        let type = if case .claim = message.operation { "claim" } else { "release" }
        members.insert(JSONMember("type", .string(type)), at: 0)
        members.append(JSONMember("control", .string(control)))
    case let .drag(control, name, phase, pointer):
        members.insert(JSONMember("type", .string("drag")), at: 0)
        members += [JSONMember("control", .string(control))] + thumb(name) + [JSONMember("phase", .string(phase.rawValue))]
        switch pointer {
        case let .dx(x, dy)?:
            members.append(JSONMember("dx", .number(x)))
            if dy != 0 { members.append(JSONMember("dy", .number(dy))) }
        case let .at(x, nil)?: members.append(JSONMember("at", .number(x)))
        case let .at(x, y?)?: members.append(JSONMember("at", .array([.number(x), .number(y)])))
        case nil: break
        }
    case let .set(control, name, value):
        members.insert(JSONMember("type", .string("set")), at: 0)
        members += [JSONMember("control", .string(control))] + thumb(name)
        switch value {
        case let .number(x): members.append(JSONMember("value", .number(x)))
        case let .text(s): members.append(JSONMember("value", .string(s)))
        case let .flag(b): members.append(JSONMember("value", .bool(b)))
        case let .point(x, y):
            let axes = [x.map { JSONMember("x", .number($0)) }, y.map { JSONMember("y", .number($0)) }].compactMap { $0 }
            members.append(JSONMember("value", .object(axes)))
        case let .other(type):
            let sample: JSON = switch type {
            case "null": .null
            case "array": .array([])
            default: .object([])
            }
            members.append(JSONMember("value", sample))
        }
    case let .step(control, name, by, byY):
        members.insert(JSONMember("type", .string("step")), at: 0)
        let amount: JSON = byY.map { .array([.number(by), .number($0)]) } ?? .number(by)
        members += [JSONMember("control", .string(control))] + thumb(name) + [JSONMember("by", amount)]
    }
    return JSON.object(members).bytes
}

extension JSON {
    /// How many arrays and objects are nested at the deepest point (a scalar: 0).
    var depth: Int {
        switch self {
        case let .array(elements): 1 + (elements.map(\.depth).max() ?? 0)
        case let .object(members): 1 + (members.map(\.value.depth).max() ?? 0)
        default: 0
        }
    }

    var allNumbersFinite: Bool {
        switch self {
        case let .number(x): x.isFinite
        case let .array(elements): elements.allSatisfy(\.allNumbersFinite)
        case let .object(members): members.allSatisfy(\.value.allNumbersFinite)
        default: true
        }
    }
}
