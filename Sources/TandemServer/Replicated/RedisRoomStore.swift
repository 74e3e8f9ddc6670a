import TandemCore
import TandemRedis
import TandemStorage
import TandemWire

/// Rooms, committed states and the commit log in Redis (docs/scale-out.md,
/// "Redis keys"), read and written with blocking calls: at start, by the
/// admin API and by history reads, as SQLite is. Commits themselves are
/// written by the owner's fenced turn script (`ClusterScripts.writeTurn`),
/// never here.
struct RedisRoomStore {
    let redis: RedisBlocking

    /// A room as stored: what `Room(_:)` needs, and who made each control's last commit.
    struct Loaded {
        var stored: StoredRoom
        var by: [ClientID?]
    }

    /// Every room id in the cluster.
    func roomIDs() throws(ClusterStoreError) -> [String] {
        let reply = try call(["SMEMBERS", ClusterKeys.rooms], "list rooms")
        return (reply.elements ?? []).compactMap(\.string).sorted()
    }

    /// The room `id`, or `nil` when it has no schema in Redis. A stored
    /// state that no longer fits its control is replaced by the control's
    /// initial state with revision 0, as SQLite storage does.
    func load(_ id: String) throws(ClusterStoreError) -> Loaded? {
        let operation = "load room '\(id)'"
        let fields = try call(["HGETALL", ClusterKeys.room(id)], operation).fields
        guard let json = fields["schema"] else { return nil }
        let schema: RoomSchema
        do {
            schema = try SchemaCodec.decode(json)
        } catch {
            throw ClusterStoreError(operation: operation, reason: "the stored schema is not valid: \(error)")
        }
        let revision = fields["revision"].flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
        var committed: [ControlState] = []
        var revisions: [Int] = []
        var by: [ClientID?] = []
        for control in schema.controls {
            if let bytes = fields["s:" + control.id], let state = StateCodec.decode(bytes).flatMap({ StateCodec.fit($0, to: control.kind) }),
               control.isValid(state) {
                committed.append(state)
                let r = fields["r:" + control.id].flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                revisions.append(min(r, revision))
                by.append(fields["b:" + control.id].map { ClientID(String(decoding: $0, as: UTF8.self)) })
            } else {
                committed.append(control.initial)
                revisions.append(0)
                by.append(nil)
            }
        }
        return Loaded(stored: StoredRoom(schema: schema, committed: committed, revisions: revisions, revision: revision), by: by)
    }

    /// Saves `schema`, keeping the room's revision and the committed states of
    /// the controls it still has. A room new to Redis starts at the last
    /// revision its id has in the log, so a room deleted and created again
    /// never reuses a revision.
    func save(_ schema: RoomSchema) throws(ClusterStoreError) {
        let operation = "save room '\(schema.id)'"
        let key = ClusterKeys.room(schema.id)
        let fieldsReply = try call(["HKEYS", key], operation)
        let ids = Set(schema.controls.map(\.id))
        var dropped: [String] = []
        var hasRevision = false
        for field in (fieldsReply.elements ?? []).compactMap(\.string) {
            if field == "revision" { hasRevision = true }
            for prefix in ["s:", "r:", "b:"] where field.hasPrefix(prefix) && !ids.contains(String(field.dropFirst(2))) {
                dropped.append(field)
            }
        }
        if !dropped.isEmpty { _ = try call(["HDEL", key] + dropped, operation) }
        var set: [[UInt8]] = [Array("HSET".utf8), Array(key.utf8), Array("schema".utf8), SchemaCodec.encode(schema)]
        if !hasRevision {
            set += [Array("revision".utf8), Array(String(try lastLogged(schema.id)).utf8)]
        }
        _ = try call(set, operation)
        _ = try call(["SADD", ClusterKeys.rooms, schema.id], operation)
    }

    /// Forgets the room's schema, committed states and presets; its log stays.
    func delete(_ id: String) throws(ClusterStoreError) {
        let operation = "delete room '\(id)'"
        _ = try call(["DEL", ClusterKeys.room(id), ClusterKeys.presets(id)], operation)
        _ = try call(["SREM", ClusterKeys.rooms, id], operation)
    }

    /// The last revision in the room's log (0 when none).
    func lastLogged(_ id: String) throws(ClusterStoreError) -> Int {
        let reply = try call(["XREVRANGE", ClusterKeys.log(id), "+", "-", "COUNT", "1"], "read the log of room '\(id)'")
        guard let entry = reply.elements?.first?.elements?.first?.string else { return 0 }
        return Int(entry.split(separator: "-").first ?? "0") ?? 0
    }

    /// Commits with revision above `since`, ascending, at most `limit` of
    /// them (more when the last revision has several rows: whole revisions only).
    func history(room id: String, since: Int, limit: Int) throws(ClusterStoreError) -> [StoredCommit] {
        let operation = "read the history of room '\(id)'"
        // Rows of one revision (a batch) are few: ask for a margin, then cut at a revision boundary.
        let reply = try call(["XRANGE", ClusterKeys.log(id), "\(since + 1)-0", "+", "COUNT", "\(limit + 64)"], operation)
        var commits: [StoredCommit] = []
        for entry in reply.elements ?? [] {
            guard let commit = Self.commit(entry, room: id) else { continue }
            if commits.count >= limit, commits.last?.revision != commit.revision { break }
            commits.append(commit)
        }
        return commits
    }

    /// One entry of a room's log stream (`XRANGE`'s `[id, [field, value…]]`)
    /// as the commit it records; `nil` for one that is not a commit's.
    static func commit(_ entry: RedisReply, room: String) -> StoredCommit? {
        guard let parts = entry.elements, parts.count == 2, let entryID = parts[0].string,
              let revision = Int(entryID.split(separator: "-").first ?? "") else { return nil }
        let fields = parts[1].fields
        guard let control = fields["control"].map({ String(decoding: $0, as: UTF8.self) }),
              let state = fields["state"].flatMap({ StateCodec.decode($0) }) else { return nil }
        return StoredCommit(room: room, revision: revision, control: control, state: state,
                            client: fields["client"].map { String(decoding: $0, as: UTF8.self) } ?? "",
                            name: fields["name"].map { String(decoding: $0, as: UTF8.self) } ?? "",
                            time: fields["time"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0)
    }

    private func call(_ args: [String], _ operation: String) throws(ClusterStoreError) -> RedisReply {
        try call(args.map { Array($0.utf8) }, operation)
    }

    func call(_ args: [[UInt8]], _ operation: String) throws(ClusterStoreError) -> RedisReply {
        let reply: RedisReply
        do {
            reply = try redis.command(args)
        } catch {
            throw ClusterStoreError(operation: operation, reason: error.description)
        }
        if case let .error(text) = reply { throw ClusterStoreError(operation: operation, reason: text) }
        return reply
    }
}

/// A Redis read or write of the cluster's store that failed: what and why.
struct ClusterStoreError: Error, CustomStringConvertible {
    var operation: String
    var reason: String
    var description: String { "redis: \(operation): \(reason)" }
}
