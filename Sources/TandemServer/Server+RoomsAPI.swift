import TandemCore
import TandemStorage
import TandemWire

/// The admin API's room writes: `POST /api/rooms` (create, or replace a
/// room's schema) and `DELETE /api/rooms/{room}`. Who may call them is
/// decided before they run: an admin token with auth on (`authorizeAPI`), a
/// loopback peer with auth off (`adminRefusal`). The body and the limits are
/// checked here; the rooms save or delete (`RoomService.saveRoom`, `deleteRoom`).
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
        return service.saveRoom(schema, replacing: old)
    }

    /// `DELETE /api/rooms/{room}`: 204; its clients closed with 4404. The commit
    /// log stays; built-in rooms (the demo) cannot be deleted (403).
    func deleteRoom(_ id: String) -> HTTPAnswer {
        guard rooms[id] != nil else { return .json(404, problem("unknown_room", "no room '\(id)'")) }
        guard !rooms.builtIn.contains(id) else {
            return .json(403, problem("forbidden", "the built-in room '\(id)' cannot be deleted"))
        }
        return service.deleteRoom(id)
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
