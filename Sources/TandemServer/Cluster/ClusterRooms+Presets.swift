import TandemCore
import TandemRedis
import TandemStorage
import TandemWire

/// A room's presets in Redis: `tandem:{ROOM}:presets`, a hash of name →
/// `{"states":{id: state, …},"client":…,"by":…,"time":…}` (states as SQLite
/// keeps them, docs/presets.md).
extension ClusterRooms: PresetStore {
    func loadPresets(room: String) throws -> [Preset] {
        let operation = "load presets of room '\(room)'"
        let stored = try call(["HGETALL", ClusterKeys.presets(room)].map { Array($0.utf8) }, operation).fields
        var presets: [Preset] = []
        for (name, bytes) in stored {
            guard case let .object(fields)? = try? JSONParser.parse(bytes, maxDepth: 4),
                  case let .object(states)? = fields.first(where: { $0.key == "states" })?.value else {
                throw ClusterStoreError(operation: operation, reason: "preset '\(name)' is not readable")
            }
            let value = { (key: String) in fields.first(where: { $0.key == key })?.value }
            let entries = states.compactMap { member in StateCodec.decode(member.value).map { Preset.Entry(control: member.key, state: $0) } }
            var time: Int64 = 0
            if case let .number(t)? = value("time") { time = Int64(t) }
            presets.append(Preset(name: name, entries: entries, client: value("client")?.stringValue ?? "",
                                  by: value("by")?.stringValue ?? "", time: time))
        }
        return presets.sorted { $0.name < $1.name }
    }

    func storePreset(_ preset: Preset, room: String) throws {
        _ = try call([Array("HSET".utf8), Array(ClusterKeys.presets(room).utf8), Array(preset.name.utf8), Self.encode(preset)],
                     "save preset '\(preset.name)' of room '\(room)'")
    }

    func renameStoredPreset(_ name: String, to: String, room: String) throws {
        let operation = "rename preset '\(name)' of room '\(room)'"
        let key = ClusterKeys.presets(room)
        guard let bytes = try call(["HGET", key, name].map { Array($0.utf8) }, operation).bytes else { return }
        let taken = try call(["HSETNX", key, to].map { Array($0.utf8) } + [bytes], operation)
        guard taken.int == 1 else { throw ClusterStoreError(operation: operation, reason: "a preset named '\(to)' already exists") }
        _ = try call(["HDEL", key, name].map { Array($0.utf8) }, operation)
    }

    func deleteStoredPreset(_ name: String, room: String) throws {
        _ = try call(["HDEL", ClusterKeys.presets(room), name].map { Array($0.utf8) }, "delete preset '\(name)' of room '\(room)'")
    }

    private static func encode(_ preset: Preset) -> [UInt8] {
        var out: [UInt8] = Array("{\"states\":".utf8)
        out += PresetMessages.states(preset.entries)
        out += JSON.object([
            JSONMember("client", .string(preset.client)),
            JSONMember("by", .string(preset.by)),
            JSONMember("time", .number(Double(preset.time))),
        ]).bytes.dropFirst().reduce(into: [UInt8(ascii: ",")]) { $0.append($1) }
        return out
    }
}
