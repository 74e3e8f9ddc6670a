import TandemAuth
import TandemCore
import TandemRedis
import TandemWire

/// The HTTP API in cluster mode: `GET /api/cluster`, and the room writes
/// that must reach every node (docs/scale-out.md, "Rooms").
extension ReplicatedRooms {
    /// A write over HTTP (checked and decoded by the server as on a single
    /// node) sent to the room's owner as client `api` (with a `seq` of this
    /// request's own); the answer waits for the owner's ack (200, as this
    /// node's view then has it) or reject, at most `Self.apiWait` seconds (then 503).
    func write(_ write: RoomWrite, in host: RoomHost, exchange: HTTPExchange) -> HTTPAnswer {
        switch write {
        case let .set(control, _, body):
            guard case let .object(members)? = try? JSONParser.parse(body) else {
                return .json(400, problem("bad_message", "expected a JSON object"))
            }
            var fields = [JSONMember("type", .string("set")), JSONMember("seq", .number(1)), JSONMember("control", .string(control))]
            fields += members.filter { $0.key == "value" || $0.key == "thumb" }
            return clusterAPIWrite(.object(fields), in: host, kind: .put(control: control), exchange: exchange)
        case let .recall(preset):
            let message = JSON.object([JSONMember("type", .string("preset")), JSONMember("seq", .number(1)),
                                       JSONMember("action", .string("recall")), JSONMember("name", .string(preset.name))])
            return clusterAPIWrite(message, in: host, kind: .recall(preset.name), exchange: exchange)
        case let .restore(revision):
            let message = JSON.object([JSONMember("type", .string("restore")), JSONMember("seq", .number(1)),
                                       JSONMember("rev", .number(Double(revision)))])
            return clusterAPIWrite(message, in: host, kind: .restore(revision), exchange: exchange)
        case let .reset(control):
            var fields = [JSONMember("type", .string("reset")), JSONMember("seq", .number(1))]
            if let control { fields.append(JSONMember("control", .string(control))) }
            return clusterAPIWrite(.object(fields), in: host, kind: control.map { .put(control: $0) } ?? .reset, exchange: exchange)
        case let .release(control):
            let message = JSON.object([JSONMember("type", .string("release")), JSONMember("seq", .number(1)),
                                       JSONMember("control", .string(control))])
            return clusterAPIWrite(message, in: host, kind: .put(control: control), exchange: exchange)
        }
    }

    /// Sends a write over HTTP (`message`, a client message whose `seq` is
    /// replaced by this request's own) to the room's owner as client `api`,
    /// and defers the answer until its ack or reject.
    func clusterAPIWrite(_ message: JSON, in host: RoomHost, kind: Cluster.PendingWrite.Kind,
                         exchange: HTTPExchange) -> HTTPAnswer {
        guard case let .object(members) = message else { return .json(500, problem("internal", "not a message")) }
        let seq = cluster.nextAPISeq()
        let bytes = JSON.object(members.map { $0.key == "seq" ? JSONMember("seq", .number(Double(seq))) : $0 }).bytes
        cluster.pendingAPI[seq] = Cluster.PendingWrite(exchange: exchange, room: host.room.id, kind: kind,
                                                       deadline: MonotonicClock.now().adding(seconds: Self.apiWait))
        let replica = cluster.replica(host.room.id)
        let now = MonotonicClock.now()
        follow(replica, at: now)
        if replica.synced {
            relay(.message(client: Cluster.apiClient, bytes: bytes), replica, host: host, at: now, seq: seq)
        } else {
            replica.apiAwaitingSync.append((bytes, seq))
            seekOwner(replica, at: now)
        }
        return .deferred
    }

    /// The answer to a write over HTTP the owner acknowledged, from this
    /// node's view once it absorbed the publication carrying the ack.
    func apiWriteAnswer(_ pending: Cluster.PendingWrite, _ delta: RoomDelta) -> HTTPAnswer {
        guard let host = rooms[pending.room] else { return .json(404, problem("unknown_room", "no room '\(pending.room)'")) }
        switch pending.kind {
        case let .put(control):
            return putAnswer(host, control: control)
        case let .restore(revision):
            let mine = delta.changes.filter { $0.by == Cluster.apiClient }
            let after = mine.map(\.revision).max()
            return .json(200, JSON.object([
                JSONMember("restored", .number(Double(revision))),
                JSONMember("rev", .number(Double(after ?? host.room.revision))),
                JSONMember("changed", .number(Double(after.map { r in mine.filter { $0.revision == r }.count } ?? 0))),
            ]).bytes)
        case .reset:
            let mine = delta.changes.filter { $0.by == Cluster.apiClient }
            let revision = mine.map(\.revision).max()
            return resetAnswer(revision: revision ?? host.room.revision,
                               changed: revision.map { r in mine.filter { $0.revision == r }.map(\.control) } ?? [])
        case let .recall(name):
            let mine = delta.changes.filter { $0.by == Cluster.apiClient }
            let revision = mine.map(\.revision).max() ?? host.room.revision
            let changed = mine.filter { $0.revision == revision }.map { JSON.string($0.control) }
            log.info("preset '\(name)' recalled in room \(pending.room) over HTTP: \(changed.count) control(s) at rev \(revision)")
            return .json(200, JSON.object([
                JSONMember("name", .string(name)),
                JSONMember("rev", .number(Double(revision))),
                JSONMember("changed", .array(changed)),
            ]).bytes)
        }
    }

    /// How long a write over HTTP waits for the room's owner.
    static let apiWait = 5.0

    /// Answers the deferred write `seq`, if this node is waiting for it.
    func finishAPIWrite(_ seq: Int, _ answer: (Cluster.PendingWrite) -> HTTPAnswer) {
        guard let pending = cluster.pendingAPI.removeValue(forKey: seq) else { return }
        completeDeferred(pending.exchange, answer(pending))
    }

    /// `POST /api/rooms` in a cluster, once the body is checked (`postRoom`):
    /// the schema is saved in Redis and every node is told; this node serves
    /// it at once. 201 new, 200 replaced (its members on every node closed with 1012).
    func saveRoom(_ schema: RoomSchema, replacing old: RoomHost?) -> HTTPAnswer {
        do {
            try cluster.store.save(schema)
            _ = try cluster.store.redis.command(["PUBLISH", ClusterKeys.lifecycle, "\(old == nil ? "created" : "replaced") \(schema.id)"].map { Array($0.utf8) })
        } catch {
            log.error("\(error)")
            return .json(503, problem("storage", "the room could not be saved in redis; try again"))
        }
        reloadRoom(schema.id, at: MonotonicClock.now())
        guard let host = rooms[schema.id] else { return .json(500, problem("storage", "the room could not be read back from redis")) }
        log.info("room \(schema.id) \(old == nil ? "created" : "replaced") in the cluster")
        sendDump(host) // once, from the node that saved it (the lifecycle message reaches the others)
        return .json(old == nil ? 201 : 200, OutboundEncoder.welcome(host.room.snapshot))
    }

    /// `DELETE /api/rooms/{room}` in a cluster: 204, its members on every node closed with 4404.
    func deleteRoom(_ id: String) -> HTTPAnswer {
        do {
            if let schema = rooms[id]?.room.schema {
                try seriesStore.delete(room: id, controls: schema.controls.map(\.id))
                series.forget(id)
            }
            try cluster.store.delete(id)
            _ = try cluster.store.redis.command(["PUBLISH", ClusterKeys.lifecycle, "deleted \(id)"].map { Array($0.utf8) })
        } catch {
            log.error("\(error)")
            return .json(503, problem("storage", "the room could not be deleted in redis; try again"))
        }
        forgetRoom(id, reason: "deleted")
        return .body(status: 204, contentType: "application/json", bytes: [])
    }

    /// `GET /api/cluster`: this node, every node with a live heartbeat (its
    /// address, connections and owned rooms), and each room's lease holder.
    ///
    /// For an admin token scoped to some rooms (`claims`, whose `room` is not
    /// `"*"`), only those rooms: `rooms` and each node's `owned` list name no
    /// other, and a node's `address` and `connections` (which count every
    /// room's people) are left out; `"scoped": true` says so. `nil` (auth
    /// off) or a `"*"` token: everything.
    func clusterAPI(for claims: Claims? = nil) -> HTTPAnswer {
        let visible: (String) -> Bool = { claims?.covers(room: $0) ?? true }
        let scoped = claims.map { $0.rooms != .all } ?? false
        var nodes: [JSON] = []
        var owners: [JSONMember] = []
        do {
            let names = try cluster.store.redis.command(["SMEMBERS", ClusterKeys.nodes].map { Array($0.utf8) }).elements?.compactMap(\.string) ?? []
            for name in names.sorted() {
                let stored = try cluster.store.redis.command(["HGETALL", ClusterKeys.node(name)].map { Array($0.utf8) }).fields
                guard !stored.isEmpty else { continue } // its heartbeat lapsed: gone
                let fields = stored.mapValues { String(decoding: $0, as: UTF8.self) }
                let owned = (fields["owned"] ?? "").split(separator: ",").map(String.init).filter(visible).map { JSON.string($0) }
                var members = [JSONMember("id", .string(name))]
                if !scoped {
                    members.append(JSONMember("address", .string(fields["address"] ?? "")))
                    members.append(JSONMember("connections", .number(Double(Int(fields["connections"] ?? "") ?? 0))))
                }
                members.append(JSONMember("owned", .array(owned)))
                members.append(JSONMember("heartbeat_ms", .number(Double(Int(fields["time"] ?? "") ?? 0))))
                nodes.append(.object(members))
            }
            for id in rooms.order where visible(id) {
                let holder = try cluster.store.redis.command(["GET", ClusterKeys.lease(id)].map { Array($0.utf8) }).string
                let parts = holder?.split(separator: " ") ?? []
                owners.append(JSONMember(id, parts.count == 2
                    ? .object([JSONMember("owner", .string(String(parts[0]))), JSONMember("epoch", .number(Double(Int(parts[1]) ?? 0)))])
                    : .null))
            }
        } catch {
            log.error("\(error)")
            return .json(503, problem("storage", "redis could not be read: \(error)"))
        }
        return .json(200, JSON.object([
            JSONMember("node", .string(cluster.node)),
            JSONMember("redis", .string(cluster.up ? "up" : "down: \(cluster.downReason ?? "connecting")")),
            JSONMember("nodes", .array(nodes)),
            JSONMember("rooms", .object(owners)),
        ] + (scoped ? [JSONMember("scoped", .bool(true))] : [])).bytes)
    }
}
