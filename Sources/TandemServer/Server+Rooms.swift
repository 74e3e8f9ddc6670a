import TandemCore
import TandemStorage
import TandemWire

/// The admin API's room writes: `POST /api/rooms` (create, or replace a
/// room's schema) and `DELETE /api/rooms/{room}`. Who may call them is
/// decided before they run: an admin token with auth on (`authorizeAPI`), a
/// loopback peer with auth off (`adminRefusal`).
extension Server {
    /// `POST /api/rooms`: 201 and the new room's snapshot; 200 when it replaced
    /// an existing room's schema (its clients closed with 1012), or 200 with
    /// `"unchanged":true` when the schema equals the current one (nothing done,
    /// nobody closed); 400 on a bad schema; 409 `too_many_rooms` past `--max-rooms`.
    func postRoom(_ exchange: HTTPExchange) -> HTTPAnswer {
        let schema: RoomSchema
        switch roomBody(exchange) {
        case let .success(decoded): schema = decoded.schema
        case let .failure(refusal): return refusal.answer
        }
        let old = rooms[schema.id]
        if let old, old.room.schema == schema {
            // Re-posting the same schema changes nothing: nobody is kicked.
            log.info("room \(schema.id) posted again unchanged: nothing to do")
            var bytes = OutboundEncoder.welcome(old.room.snapshot)
            bytes.removeLast() // the closing brace
            bytes.append(contentsOf: Array(",\"unchanged\":true}".utf8))
            return .json(200, bytes)
        }
        if old == nil, rooms.count >= config.limits.maxRooms {
            metrics.refusals["too_many_rooms", default: 0] += 1
            throttled("too_many_rooms", .warn, "refused to create room \(schema.id): \(rooms.count) rooms served, --max-rooms \(config.limits.maxRooms)")
            return .json(409, problem("too_many_rooms", "this server serves at most \(config.limits.maxRooms) rooms (--max-rooms); delete one or replace an existing room"))
        }
        if let cluster { return clusterSaveRoom(schema, replacing: old, cluster: cluster) }
        // Pending commits of this room go to storage under the old schema first
        // (when they cannot be, the room is back at what the file holds: the save is tried all the same).
        writeCommits()
        let room: Room
        do {
            room = try build(schema, replacing: old?.room)
        } catch {
            return storageAnswer(error) // 503 on a full or failing disk: nothing changed (Server+Durability.swift)
        }
        let host = Self.makeHost(room, config: config)
        rooms[schema.id] = host
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
        return .json(old == nil ? 201 : 200, OutboundEncoder.welcome(room.snapshot))
    }

    /// `DELETE /api/rooms/{room}`: 204; its clients closed with 4404. The commit
    /// log stays; built-in rooms (the demo) cannot be deleted (403).
    func deleteRoom(_ host: RoomHost) -> HTTPAnswer {
        let id = host.room.id
        guard !rooms.builtIn.contains(id) else {
            return .json(403, problem("forbidden", "the built-in room '\(id)' cannot be deleted"))
        }
        writeCommits()
        do {
            try storage?.deleteRoom(id)
        } catch {
            return storageAnswer(error)
        }
        retiredRevisions[id] = host.room.revision
        presetBooks[id] = nil // storage forgot them with the room
        presetFeed.forget(id)
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

    /// The host of `room`, with the limits this server's configuration sets.
    static func makeHost(_ room: Room, config: ServerConfig) -> RoomHost {
        var room = room
        room.limits.presence = config.presenceLimit
        // With a SQLite file, the room remembers what the file holds of it, to go
        // back there when a write fails (Server+Durability.swift); a new room's state is in the file.
        if config.cluster == nil && config.dataPath != ":memory:" { room.markDurable() }
        return RoomHost(room: room)
    }
}

/// A room body the admin API refused: its 400 answer.
struct RoomBodyRefusal: Error {
    var answer: HTTPAnswer
}

extension Server {
    /// The schema a `POST /api/rooms` body describes, validated; or its 400
    /// answer. Read once per request and kept on the exchange, so the room
    /// `authorizeAPI` checks is the room `postRoom` applies (`RoomBody`).
    func roomBody(_ exchange: HTTPExchange) -> Result<RoomBody, RoomBodyRefusal> {
        if let decoded = exchange.roomBody { return decoded }
        let decoded = decodeRoomBody(exchange.body)
        exchange.roomBody = decoded
        return decoded
    }

    private func decodeRoomBody(_ body: [UInt8]) -> Result<RoomBody, RoomBodyRefusal> {
        do {
            return .success(try RoomBody(body))
        } catch {
            return .failure(RoomBodyRefusal(answer: .json(400, JSON.object([
                JSONMember("code", .string("bad_schema")),
                JSONMember("message", .string(error.description)),
                JSONMember("control", error.control.map(JSON.string) ?? .null),
                JSONMember("field", .string(error.field)),
            ]).bytes)))
        }
    }
}
