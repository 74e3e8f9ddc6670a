import TandemCore

/// What a client's `preset` message asks for (docs/presets.md).
public enum PresetRequest: Sendable, Hashable {
    /// Save the room's committed values under `name`, replacing a preset of that name.
    case save(name: String)
    /// Commit the preset's states as one revision.
    case recall(name: String)
    /// Give the preset `name` the name `to`.
    case rename(name: String, to: String)
    /// Forget the preset.
    case delete(name: String)

    /// The preset the request is about.
    public var name: String {
        switch self {
        case let .save(name), let .recall(name), let .rename(name, _), let .delete(name): name
        }
    }

    /// The `action` on the wire.
    public var action: String {
        switch self {
        case .save: "save"
        case .recall: "recall"
        case .rename: "rename"
        case .delete: "delete"
        }
    }
}

/// The wire side of presets: the client's `preset` message and the server's
/// `presets` list, the HTTP API's list and diff bodies.
///
/// `{"type":"preset","seq":N,"action":A,"name":"Warm"}` (and `"to"` for
/// `rename`) is checked in this order, the first failure being the refusal:
/// 1. `seq` as for every message (`bad_message`);
/// 2. `action` one of `save`, `recall`, `rename`, `delete` (`bad_message`);
/// 3. `name` present (`bad_message`), a string (`bad_value`), and a name
///    once trimmed: 1–60 characters, no control characters (`bad_value`);
/// 4. for `rename`, `to` by the same rules.
/// Other keys are ignored, as in every message.
public enum PresetMessages {
    static let actions = ["save", "recall", "rename", "delete"]

    /// Decodes a message whose `type` is `"preset"`; `seq` is its usable seq, if any.
    static func decode(_ members: [JSONMember], seq: Int?) -> Inbound {
        guard let seq else {
            return .refused(seq: nil, code: .badMessage, message: "seq must be a whole number from 1 to 2^53")
        }
        let message = JSON.object(members)
        guard case let .string(action)? = message["action"], actions.contains(action) else {
            return .refused(seq: seq, code: .badMessage, message: "action must be \"save\", \"recall\", \"rename\" or \"delete\"")
        }
        let name: String
        switch field("name", of: message) {
        case let .success(cleaned): name = cleaned
        case let .failure(refusal): return .refused(seq: seq, code: refusal.code, message: refusal.message)
        }
        switch action {
        case "save": return .preset(seq: seq, .save(name: name))
        case "recall": return .preset(seq: seq, .recall(name: name))
        case "delete": return .preset(seq: seq, .delete(name: name))
        default:
            switch field("to", of: message) {
            case let .success(to): return .preset(seq: seq, .rename(name: name, to: to))
            case let .failure(refusal): return .refused(seq: seq, code: refusal.code, message: refusal.message)
            }
        }
    }

    /// A name field of the message: rule 3.
    private static func field(_ key: String, of message: JSON) -> Result<String, WireRefusal> {
        guard let value = message[key] else {
            return .failure(WireRefusal(.badMessage, "preset \(message["action"]?.stringValue ?? "") needs \(key == "to" ? "to (the new name)" : "a name")"))
        }
        guard case let .string(text) = value else {
            return .failure(WireRefusal(.badValue, "\(key) must be a string, not \(value.typeName)"))
        }
        return PresetName.clean(text, field: key).mapError { WireRefusal(.badValue, $0.message) }
    }

    // MARK: server to client

    /// `{"type":"presets","presets":[…]}`: the room's presets, sorted by name,
    /// each as `list` writes it. Every member gets it after the welcome and
    /// after every change of the list.
    public static func frame(_ presets: [Preset]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 256 * presets.count)
        w.append(raw: "{\"type\":\"presets\",\"presets\":")
        append(presets, to: &w)
        w.append(byte: ASCII.closeBrace)
        return w.bytes
    }

    /// `{"presets":[{"name","states":{id: state},"by","time"}]}`, sorted by
    /// name: the body of `GET /api/rooms/{room}/presets`.
    public static func list(_ presets: [Preset]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 256 * presets.count)
        w.append(raw: "{\"presets\":")
        append(presets, to: &w)
        w.append(byte: ASCII.closeBrace)
        return w.bytes
    }

    /// One preset: `{"name","states":{id: state},"by","time"}` (`time` in Unix ms).
    public static func preset(_ preset: Preset) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        append(preset, to: &w)
        return w.bytes
    }

    /// `{"name","changes":[{"control","preset":state,"now":state}]}`: what a
    /// recall of the preset would change (`GET …/presets/{name}/diff`).
    public static func diff(name: String, changes: [PresetChange]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 160 * changes.count)
        w.append(raw: "{\"name\":")
        w.append(string: name)
        w.append(raw: ",\"changes\":")
        w.append(array: changes) { w, change in
            w.append(raw: "{\"control\":")
            w.append(string: change.control)
            w.append(raw: ",\"preset\":")
            w.append(state: change.preset)
            w.append(raw: ",\"now\":")
            w.append(state: change.now)
            w.append(byte: ASCII.closeBrace)
        }
        w.append(byte: ASCII.closeBrace)
        return w.bytes
    }

    /// `{"id":state,…}` in the preset's order: the `states` of the wire and of storage.
    public static func states(_ entries: [Preset.Entry]) -> [UInt8] {
        var w = JSONWriter(capacity: 16 + 64 * entries.count)
        append(entries, to: &w)
        return w.bytes
    }

    private static func append(_ presets: [Preset], to w: inout JSONWriter) {
        w.append(array: presets.sorted { $0.name < $1.name }) { w, preset in append(preset, to: &w) }
    }

    private static func append(_ preset: Preset, to w: inout JSONWriter) {
        w.append(raw: "{\"name\":")
        w.append(string: preset.name)
        w.append(raw: ",\"states\":")
        append(preset.entries, to: &w)
        w.append(raw: ",\"by\":")
        w.append(string: preset.by)
        w.append(raw: ",\"time\":")
        w.append(int: Int(preset.time))
        w.append(byte: ASCII.closeBrace)
    }

    private static func append(_ entries: [Preset.Entry], to w: inout JSONWriter) {
        w.append(byte: ASCII.openBrace)
        for (k, entry) in entries.enumerated() {
            if k > 0 { w.append(byte: ASCII.comma) }
            w.append(key: entry.control)
            w.append(state: entry.state)
        }
        w.append(byte: ASCII.closeBrace)
    }
}

/// One control a recall would change: its state in the preset and now.
public struct PresetChange: Sendable, Hashable {
    public var control: String
    public var preset: ControlState
    public var now: ControlState

    public init(control: String, preset: ControlState, now: ControlState) {
        self.control = control
        self.preset = preset
        self.now = now
    }
}
