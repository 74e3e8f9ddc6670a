import TandemStorage
import TandemWire

/// Where a room's presets are kept: the SQLite file on a single node,
/// Redis in a cluster (`RedisRoomStore`). The server keeps each room's list in
/// memory (`PresetBook`) and writes every change through this first.
protocol PresetStore {
    func loadPresets(room: String) throws -> [Preset]
    func storePreset(_ preset: Preset, room: String) throws
    func renameStoredPreset(_ name: String, to: String, room: String) throws
    func deleteStoredPreset(_ name: String, room: String) throws
}

extension Storage: PresetStore {
    func loadPresets(room: String) throws -> [Preset] {
        try presets(room: room)
    }

    func storePreset(_ preset: Preset, room: String) throws {
        try savePreset(preset, room: room)
    }

    func renameStoredPreset(_ name: String, to: String, room: String) throws {
        try renamePreset(name, to: to, room: room)
    }

    func deleteStoredPreset(_ name: String, room: String) throws {
        try deletePreset(name, room: room)
    }
}
