import TandemCore
import TandemStorage
import TandemWire

/// Room writes of the admin API in local rooms (`Server+RoomsAPI.swift`
/// checks the body, the limits and who asks): the schema saved to the file
/// (or kept in memory) and the room served at once.
extension LocalRooms {
    /// Saves `schema` (checked by the admin API) as a new room or over `old`'s.
    func saveRoom(_ schema: RoomSchema, replacing old: RoomHost?) -> HTTPAnswer {
        // Pending commits of this room go to storage under the old schema first
        // (when they cannot be, the room is back at what the file holds: the save is tried all the same).
        writeCommits()
        let room: Room
        do {
            room = try build(schema, replacing: old?.room)
        } catch {
            return storageAnswer(error) // 503 on a full or failing disk: nothing changed (LocalRooms+Durability.swift)
        }
        let host = Self.makeHost(room, config: config)
        rooms[schema.id] = host
        do {
            try series.load(schema) // the series of the controls that still keep one go on
        } catch {
            log.error("room \(schema.id): its series could not be read, they start empty: \(error)")
        }
        if let old {
            if old.room.schema != schema { rooms.schemaChangedAt[schema.id] = old.room.revision }
            for connection in old.members.values {
                close(connection, code: 1012, reason: "room schema changed")
            }
            log.info("room \(schema.id) replaced: closing \(old.members.count) connection(s) with 1012")
        } else {
            log.info("room \(schema.id) created")
        }
        oscRoomChanged(schema.id)
        sendDump(host) // its schema may have changed
        return .json(old == nil ? 201 : 200, OutboundEncoder.welcome(room.snapshot))
    }

    /// Deletes room `id` (not a built-in one: the admin API checked): its
    /// clients closed with 4404. The commit log stays.
    func deleteRoom(_ id: String) -> HTTPAnswer {
        guard let host = rooms[id] else { return .json(404, problem("unknown_room", "no room '\(id)'")) }
        writeCommits()
        do {
            try storage?.deleteRoom(id)
        } catch {
            return storageAnswer(error)
        }
        retiredRevisions[id] = host.room.revision
        presetBooks[id] = nil // storage forgot them with the room
        presetFeed.forget(id)
        series.forget(id)
        rooms.schemaChangedAt[id] = nil
        rooms[id] = nil
        for connection in host.members.values {
            close(connection, code: 4404, reason: "room deleted")
        }
        log.info("room \(id) deleted: closing \(host.members.count) connection(s) with 4404")
        oscRoomChanged(id)
        return .body(status: 204, contentType: "application/json", bytes: [])
    }

    /// The live room for `schema`: from storage after saving it, or in memory
    /// with the committed states of `old`'s controls that still fit.
    private func build(_ schema: RoomSchema, replacing old: Room?) throws(StorageError) -> Room {
        if let storage {
            try storage.saveRoom(schema)
            if let stored = try storage.loadRoom(schema.id) { return Room(stored) }
        }
        guard let old else {
            let revision = retiredRevisions[schema.id] ?? 0
            return Room(schema: schema, committed: schema.controls.map(\.initial),
                        revisions: Array(repeating: 0, count: schema.controls.count), revision: revision)
        }
        var committed: [ControlState] = []
        var revisions: [Int] = []
        for control in schema.controls {
            if let k = old.schema.index(of: control.id), control.isValid(old.committed[k]) {
                committed.append(old.committed[k])
                revisions.append(old.revisions[k])
            } else {
                committed.append(control.initial)
                revisions.append(0)
            }
        }
        return Room(schema: schema, committed: committed, revisions: revisions, revision: old.revision)
    }
}
