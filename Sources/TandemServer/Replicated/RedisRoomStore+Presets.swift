import TandemCore
import TandemRedis
import TandemStorage
import TandemWire

/// A room's presets in Redis: `tandem:{ROOM}:presets`, a hash of name →
/// `{"states":{id: state, …},"client":…,"by":…,"time":…}` (states as SQLite
/// keeps them, docs/presets.md). Nothing here calls Redis: the server sends
/// these commands on its non-blocking connection (`ReplicatedRooms+Presets.swift`),
/// and every change goes through a script of `ClusterScripts` that checks,
/// writes and announces it in one step.
///
/// The announcement, on `tandem:lifecycle`, is the change itself (a delta),
/// so that no node reads the whole hash again:
///
///     preset ROOM\nsave\nNAME\nVALUE
///     preset ROOM\nmove\nFROM\nTO\nVALUE
///     preset ROOM\ndelete\nNAME
///
/// (a name holds no line break, a room id neither, and VALUE is JSON on one line).
enum ClusterPresets {
    /// The start of every preset delta on the lifecycle channel.
    static let prefix = "preset "

    /// The presets of an `HGETALL` reply, under their names as stored (not yet cleaned: `PresetBook` does that).
    static func decode(_ reply: RedisReply, room: String) throws(ClusterStoreError) -> [Preset] {
        let operation = "load presets of room '\(room)'"
        if case let .error(message) = reply { throw ClusterStoreError(operation: operation, reason: message) }
        let items = reply.elements ?? []
        var presets: [Preset] = []
        var i = 0
        while i + 1 < items.count {
            defer { i += 2 }
            // The name's bytes as stored: `RedisReply.fields` would merge canonically equal spellings.
            guard let raw = items[i].bytes, let bytes = items[i + 1].bytes else { continue }
            let name = String(decoding: raw, as: UTF8.self)
            guard let preset = decodePreset(name: name, bytes) else {
                throw ClusterStoreError(operation: operation, reason: "preset '\(name)' is not readable")
            }
            presets.append(preset)
        }
        return presets
    }

    /// One stored preset.
    static func decodePreset(name: String, _ bytes: some Collection<UInt8>) -> Preset? {
        guard case let .object(fields)? = try? JSONParser.parse(Array(bytes), maxDepth: 4),
              case let .object(states)? = fields.first(where: { $0.key == "states" })?.value else { return nil }
        let value = { (key: String) in fields.first(where: { $0.key == key })?.value }
        let entries = states.compactMap { member in StateCodec.decode(member.value).map { Preset.Entry(control: member.key, state: $0) } }
        var time: Int64 = 0
        if case let .number(t)? = value("time") { time = Int64(t) }
        return Preset(name: name, entries: entries, client: value("client")?.stringValue ?? "",
                      by: value("by")?.stringValue ?? "", time: time)
    }

    /// A preset as the hash keeps it.
    static func encode(_ preset: Preset) -> [UInt8] {
        var out: [UInt8] = Array("{\"states\":".utf8)
        out += PresetMessages.states(preset.entries)
        out += JSON.object([
            JSONMember("client", .string(preset.client)),
            JSONMember("by", .string(preset.by)),
            JSONMember("time", .number(Double(preset.time))),
        ]).bytes.dropFirst().reduce(into: [UInt8(ascii: ",")]) { $0.append($1) }
        return out
    }

    // MARK: deltas

    static func saved(_ preset: Preset, value: [UInt8], room: String) -> [UInt8] {
        Array("\(prefix)\(room)\nsave\n\(preset.name)\n".utf8) + value
    }

    /// The start of a rename's delta; the script appends the value it moved.
    static func moved(_ name: String, to: String, room: String) -> [UInt8] {
        Array("\(prefix)\(room)\nmove\n\(name)\n\(to)\n".utf8)
    }

    static func deleted(_ name: String, room: String) -> [UInt8] {
        Array("\(prefix)\(room)\ndelete\n\(name)".utf8)
    }

    /// A delta heard on the lifecycle channel: its room and change, or `nil` when it is not one.
    static func note(_ payload: [UInt8]) -> (room: String, PresetChangeNote)? {
        let parts = payload.split(separator: UInt8(ascii: "\n"), maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let head = String(decoding: parts[0], as: UTF8.self)
        guard head.hasPrefix(prefix) else { return nil }
        let room = String(head.dropFirst(prefix.count))
        let name = String(decoding: parts[2], as: UTF8.self)
        switch String(decoding: parts[1], as: UTF8.self) {
        case "save" where parts.count == 4:
            return decodePreset(name: name, parts[3]).map { (room, .saved($0)) }
        case "move" where parts.count == 5:
            return decodePreset(name: String(decoding: parts[3], as: UTF8.self), parts[4]).map { (room, .moved(from: name, $0)) }
        case "delete" where parts.count == 3:
            return (room, .deleted(name))
        default:
            return nil
        }
    }
}
