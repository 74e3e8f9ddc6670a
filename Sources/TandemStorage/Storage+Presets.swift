import CSQLite
import TandemCore
import TandemWire

/// Presets: per room, `presets(room, name, states, client, by_name, time)`,
/// `states` a JSON object of control id → state as on the wire (`StateCodec`).
/// Each call is one transaction. The server keeps the list in memory and
/// writes every change through these before it tells anyone.
extension Storage {
    /// The room's presets, sorted by name. A saved state that is not a control
    /// state is left out of its preset (a recall would skip it anyway); a
    /// `states` that is not a JSON object is an error naming the preset.
    public func presets(room: String) throws(StorageError) -> [Preset] {
        let operation = "load presets of room '\(room)'"
        return try run(.selectPresets, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room))
            var presets: [Preset] = []
            while try step(s, operation) {
                let name = s.text(0)
                guard let entries = s.withBytes(1, { Self.decodeStates($0) }) else {
                    throw refusal(operation, "the states of preset '\(name)' are not a JSON object: \(s.text(1).prefix(200))")
                }
                presets.append(Preset(name: name, entries: entries, client: s.text(2), by: s.text(3), time: s.int64(4)))
            }
            return presets
        }
    }

    /// Saves `preset` in `room`, replacing one of the same name.
    public func savePreset(_ preset: Preset, room: String) throws(StorageError) {
        let operation = "save preset '\(preset.name)' of room '\(room)'"
        let states = PresetMessages.states(preset.entries)
        try transaction(operation) { () throws(StorageError) in
            try run(.upsertPreset, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, room), s.bind(2, preset.name), s.bind(3, states),
                          s.bind(4, preset.client), s.bind(5, preset.by), s.bind(6, preset.time))
                _ = try step(s, operation)
            }
        }
    }

    /// Renames a preset of `room`. Returns whether there was one named `name`.
    /// Refused when `to` is taken by another preset (nothing is overwritten).
    @discardableResult
    public func renamePreset(_ name: String, to: String, room: String) throws(StorageError) -> Bool {
        let operation = "rename preset '\(name)' of room '\(room)'"
        return try transaction(operation) { () throws(StorageError) in
            try run(.renamePreset, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, room), s.bind(2, name), s.bind(3, to))
                let rc = sqlite3_step(s.handle)
                if rc == SQLITE_DONE { return changes() > 0 }
                if rc & 0xff == SQLITE_CONSTRAINT { throw refusal(operation, "a preset named '\(to)' already exists") }
                throw failure(operation, rc)
            }
        }
    }

    /// Forgets a preset of `room`. Returns whether there was one.
    @discardableResult
    public func deletePreset(_ name: String, room: String) throws(StorageError) -> Bool {
        let operation = "delete preset '\(name)' of room '\(room)'"
        return try transaction(operation) { () throws(StorageError) in
            try run(.deletePreset, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, room), s.bind(2, name))
                _ = try step(s, operation)
                return changes() > 0
            }
        }
    }

    /// `{"id": state, …}` as entries in document order; `nil` unless a JSON
    /// object. Members that are not control states are dropped.
    static func decodeStates(_ bytes: UnsafeBufferPointer<UInt8>) -> [Preset.Entry]? {
        guard let json = try? JSONParser.parse(bytes, maxDepth: 3), case let .object(members) = json else { return nil }
        return members.compactMap { member in StateCodec.decode(member.value).map { Preset.Entry(control: member.key, state: $0) } }
    }
}
