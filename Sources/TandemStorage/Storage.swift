import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import TandemCore
import TandemWire

/// Rooms, their committed states and their commit logs in one SQLite file.
///
/// Tables: `rooms(id, schema, revision)` (the schema as a room file, see
/// `SchemaCodec`), `controls(room, id, state, revision)` (each control's
/// committed state as wire JSON, see `StateCodec`), `commits(room, revision,
/// control, state, client, name, time)` (the log, one row per control and
/// revision: a batch logs several under one), `presets(room, name, states,
/// client, by_name, time)` (Storage+Presets.swift), `snapshots` (the
/// timeline) and `meta(key, value)` (`schema_version`). The file is in WAL mode with
/// `synchronous` set by `Durability`; every write is one transaction.
///
/// Not `Sendable`: one `Storage` belongs to one thread, the server's event
/// loop. Calls block on disk I/O (and, with `.full`, on an fsync per write).
public final class Storage {
    /// The database file, or `:memory:`.
    public let path: String
    /// How hard writes are pushed to disk.
    public let durability: Durability
    private var db: OpaquePointer?
    private var statements: [SQL: Statement] = [:]
    /// Per room, the log rows since its newest timeline snapshot (Storage+Timeline.swift).
    var snapshotTallies: [String: SnapshotTally] = [:]
    /// The device and inode of the file opened, to tell when it is deleted or replaced (Storage+Health.swift).
    var opened: FileIdentity?

    /// Opens (creating, with its folders, when missing) the database at `path`;
    /// `:memory:` is a private in-memory database. Sets WAL mode, `synchronous`
    /// for `durability` and a 5 s busy timeout, and creates the tables.
    public init(path: String, durability: Durability = .normal) throws(StorageError) {
        self.path = path
        self.durability = durability
        if path != ":memory:" { try Self.createFolder(containing: path) }
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(handle)
            throw StorageError(path: path, operation: "open", code: rc, reason: reason)
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5000)
        do throws(StorageError) {
            try configure()
            try migrate()
            if path != ":memory:" { opened = FileIdentity(path) }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// The SQLite library's version ("3.40.1"), for the server's start line.
    public static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }

    /// Finalizes every statement and closes the file (checkpointing the WAL
    /// into it). Idempotent; any later call throws.
    public func close() {
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        statements = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    // MARK: rooms

    /// Saves `schema` (insert or replace), keeping the room's revision and the
    /// committed states of the controls it still has; a dropped control's
    /// state is forgotten. A room new to this file starts at the last revision
    /// its id has in the log (0 if none), so a room deleted and saved again
    /// never reuses a revision: build its `Room` from `loadRoom(_:)`.
    public func saveRoom(_ schema: RoomSchema) throws(StorageError) {
        let operation = "save room '\(schema.id)'"
        let json = SchemaCodec.encode(schema)
        let ids = Set(schema.controls.map(\.id))
        try transaction(operation) { () throws(StorageError) in
            try run(.upsertRoom, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, schema.id), s.bind(2, json))
                _ = try step(s, operation)
            }
            let dropped = try run(.selectControls, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, schema.id))
                var dropped: [String] = []
                while try step(s, operation) {
                    let id = s.text(0)
                    if !ids.contains(id) { dropped.append(id) }
                }
                return dropped
            }
            for control in dropped {
                try run(.deleteControl, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, schema.id), s.bind(2, control))
                    _ = try step(s, operation)
                }
            }
        }
    }

    /// Forgets the room's schema, committed states and presets. Its commit log
    /// stays (for `history` and audits) until `prune` removes it.
    public func deleteRoom(_ id: String) throws(StorageError) {
        let operation = "delete room '\(id)'"
        try transaction(operation) { () throws(StorageError) in
            for sql in [SQL.deleteControls, .deletePresets, .deleteSeries, .deleteRoom] {
                try run(sql, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, id))
                    _ = try step(s, operation)
                }
            }
        }
    }

    /// Every saved room, by id, ready for `Room(_:)`. A stored state that no
    /// longer fits its control (the schema changed: the control was retyped,
    /// its bounds or values moved) is replaced by the control's initial state
    /// with revision 0; the room revision is kept as stored. A stored schema
    /// that no longer validates is an error naming the room.
    public func loadRooms() throws(StorageError) -> [StoredRoom] {
        let operation = "load rooms"
        return try read(operation) { () throws(StorageError) in
            let rows = try run(.selectRooms, operation) { s throws(StorageError) in
                var rows: [(id: String, schema: [UInt8], revision: Int)] = []
                while try step(s, operation) {
                    rows.append((s.text(0), s.withBytes(1) { Array($0) }, s.int(2)))
                }
                return rows
            }
            var rooms: [StoredRoom] = []
            rooms.reserveCapacity(rows.count)
            for row in rows {
                rooms.append(try restore(row.id, schema: row.schema, revision: row.revision, operation))
            }
            return rooms
        }
    }

    /// One saved room as `loadRooms` restores it; `nil` when it is not saved.
    public func loadRoom(_ id: String) throws(StorageError) -> StoredRoom? {
        let operation = "load room '\(id)'"
        return try read(operation) { () throws(StorageError) in
            let row = try run(.selectRoom, operation) { s throws(StorageError) -> (schema: [UInt8], revision: Int)? in
                try bound(operation, s.bind(1, id))
                guard try step(s, operation) else { return nil }
                return (s.withBytes(1) { Array($0) }, s.int(2))
            }
            guard let row else { return nil }
            return try restore(id, schema: row.schema, revision: row.revision, operation)
        }
    }

    private func restore(_ id: String, schema json: [UInt8], revision: Int, _ operation: String) throws(StorageError) -> StoredRoom {
        let schema: RoomSchema
        do {
            schema = try SchemaCodec.decode(json)
        } catch {
            throw StorageError(path: path, operation: operation, reason: "the stored schema of room '\(id)' is not valid: \(error)")
        }
        let stored = try run(.selectControls, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, id))
            var stored: [String: (state: ControlState?, revision: Int)] = [:]
            while try step(s, operation) {
                stored[s.text(0)] = (s.withBytes(1) { StateCodec.decode($0) }, s.int(2))
            }
            return stored
        }
        var committed: [ControlState] = []
        var revisions: [Int] = []
        for control in schema.controls {
            if let row = stored[control.id], let state = row.state.flatMap({ StateCodec.fit($0, to: control.kind) }),
               control.isValid(state) {
                committed.append(state)
                revisions.append(min(row.revision, revision))
            } else {
                committed.append(control.initial)
                revisions.append(0)
            }
        }
        return StoredRoom(schema: schema, committed: committed, revisions: revisions, revision: revision)
    }

    // MARK: commits

    /// Records a batch of commits in ONE transaction: each is added to the
    /// log, and each room's revision and each control's committed state and
    /// revision become those of its last commit in the batch. All or nothing: if any commit is refused, none is
    /// written. Refused: a room that is not saved, and a revision that is not
    /// above the room's stored revision (so never a duplicate, even of a
    /// pruned row). Within a batch, each room's commits must come in
    /// ascending revision order, as the room made them.
    public func append(_ commits: [StoredCommit]) throws(StorageError) {
        guard !commits.isEmpty else { return }
        let operation = commits.count == 1 ? "append 1 commit" : "append \(commits.count) commits"
        do throws(StorageError) { try transaction(operation) { () throws(StorageError) in
            // Each room's revision and each control's state are written once
            // per batch, at their last value: a live drag commits every move.
            var rooms: [String: Int] = [:]
            var latest: [ControlKey: Int] = [:]
            var controls: [(key: ControlKey, state: [UInt8], revision: Int)] = []
            for commit in commits {
                guard commit.revision > 0 else {
                    throw refusal(operation, "revision \(commit.revision) of room '\(commit.room)' is not a revision (they start at 1)")
                }
                let last: Int
                if let revision = rooms[commit.room] {
                    last = revision
                } else {
                    guard let stored = try roomRevision(commit.room, operation) else {
                        throw refusal(operation, "room '\(commit.room)' is not saved (saveRoom before appending its commits)")
                    }
                    last = stored
                }
                // A batch (a preset's recall) logs several controls under one
                // revision, in one call: equal to the last is fine within it.
                guard commit.revision > last || (commit.revision == last && rooms[commit.room] != nil) else {
                    throw refusal(operation, "revision \(commit.revision) of room '\(commit.room)' is not new: the room is at revision \(last)")
                }
                rooms[commit.room] = commit.revision
                let state = StateCodec.encode(commit.state)
                try run(.insertCommit, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, commit.room), s.bind(2, commit.revision), s.bind(3, commit.control),
                              s.bind(4, state), s.bind(5, commit.client), s.bind(6, commit.name), s.bind(7, commit.time))
                    _ = try step(s, operation)
                }
                let key = ControlKey(room: commit.room, control: commit.control)
                if let k = latest[key] {
                    controls[k] = (key, state, commit.revision)
                } else {
                    latest[key] = controls.count
                    controls.append((key, state, commit.revision))
                }
            }
            try snapshotBoundaries(of: commits, operation) // the timeline's, from the states before this batch
            for (key, state, revision) in controls {
                try run(.upsertControl, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, key.room), s.bind(2, key.control), s.bind(3, state), s.bind(4, revision))
                    _ = try step(s, operation)
                }
            }
            for (room, revision) in rooms {
                try run(.setRoomRevision, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, room), s.bind(2, revision))
                    _ = try step(s, operation)
                }
            }
        } } catch {
            // Nothing was written: the timeline's tallies of these rooms are
            // recounted from the file, since the room may make these revisions again.
            for commit in commits { snapshotTallies[commit.room] = nil }
            throw error
        }
    }

    /// The stored revision of a saved room; `nil` when it is not saved.
    func roomRevision(_ room: String, _ operation: String) throws(StorageError) -> Int? {
        try run(.roomRevision, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room))
            return try step(s, operation) ? s.int(0) : nil
        }
    }

    /// The room's logged commits with revision above `since`, oldest first,
    /// at most `limit` (none for `limit <= 0`). Works for deleted rooms too.
    /// A page holds whole revisions (a batch logs several rows under one):
    /// it ends before a revision that would not fit, so it can hold fewer
    /// than `limit` rows, and more only when its one revision alone has more.
    public func history(room: String, since: Int, limit: Int) throws(StorageError) -> [StoredCommit] {
        guard limit > 0 else { return [] }
        let operation = "read history of room '\(room)'"
        var page = try run(.selectHistoryPage, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room), s.bind(2, since), s.bind(3, limit))
            var commits: [StoredCommit] = []
            while try step(s, operation) {
                let revision = s.int(0)
                guard let state = s.withBytes(2, { StateCodec.decode($0) }) else {
                    throw refusal(operation, "the state of revision \(revision) is not a control state: \(s.text(2))")
                }
                commits.append(StoredCommit(room: room, revision: revision, control: s.text(1), state: state,
                                            client: s.text(3), name: s.text(4), time: s.int64(5)))
            }
            return commits
        }
        if page.count > limit, let last = page.last?.revision, page.first?.revision != last {
            page.removeAll { $0.revision == last }
        }
        return page
    }

    /// Retention for one room's log, in one transaction; returns the rows
    /// deleted. `keepLast`: keep only the newest `keepLast` commits (0 deletes
    /// all). `olderThanMs`: a Unix time in milliseconds — delete commits whose
    /// `time` is before it (pass `WallClock.milliseconds() - maxAge`). With
    /// both, a commit goes if either says so; with neither, nothing goes.
    /// Committed states are not touched: they live apart from the log.
    public func prune(room: String, keepLast: Int?, olderThanMs: Int64?) throws(StorageError) -> Int {
        guard keepLast != nil || olderThanMs != nil else { return 0 }
        let operation = "prune room '\(room)'"
        return try transaction(operation) { () throws(StorageError) in
            try keepTimelineBase(room: room, keepLast: keepLast, olderThanMs: olderThanMs, operation)
            var deleted = 0
            if let keepLast {
                deleted += try run(.pruneKeepingLast, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, room), s.bind(2, max(keepLast, 0)))
                    _ = try step(s, operation)
                    return Int(sqlite3_changes(db))
                }
            }
            if let olderThanMs {
                deleted += try run(.pruneBefore, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, room), s.bind(2, olderThanMs))
                    _ = try step(s, operation)
                    return Int(sqlite3_changes(db))
                }
            }
            return deleted
        }
    }

    /// `PRAGMA integrity_check`: "ok", or SQLite's list of problems, one a line.
    public func integrityCheck() throws(StorageError) -> String {
        try pragma("integrity_check").joined(separator: "\n")
    }

    // MARK: SQLite

    /// The rows of `PRAGMA <text>`, first column as text. Not cached.
    func pragma(_ text: String) throws(StorageError) -> [String] {
        let operation = "PRAGMA \(text)"
        guard let db else { throw closed(operation) }
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, operation, -1, &handle, nil)
        guard rc == SQLITE_OK, let handle else { throw failure(operation, rc) }
        defer { sqlite3_finalize(handle) }
        let statement = Statement(handle: handle)
        var rows: [String] = []
        while try step(statement, operation) { rows.append(statement.text(0)) }
        return rows
    }

    private func configure() throws(StorageError) {
        let mode = try pragma("journal_mode = WAL").first ?? ""
        guard mode == "wal" || path == ":memory:" else {
            throw refusal("open", "journal_mode is '\(mode)', not 'wal' (does this file system support WAL?)")
        }
        _ = try pragma("synchronous = \(durability == .full ? "FULL" : "NORMAL")")
    }

    private func migrate() throws(StorageError) {
        let operation = "create tables"
        guard let db else { throw closed(operation) }
        try exec("BEGIN IMMEDIATE", operation)
        do throws(StorageError) {
            try exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT, WITHOUT ROWID", operation)
            let version = try run(.schemaVersion, operation) { s throws(StorageError) in
                try step(s, operation) ? s.text(0) : nil
            }
            switch version {
            case nil:
                try exec(createTables, operation)
            case String(currentSchemaVersion)?:
                break
            case "1"?:
                try exec(migrationFrom1, operation)
                try exec(migrationFrom2, operation)
            case "2"?:
                try exec(migrationFrom2, operation)
            case let version?:
                throw refusal("open", "the file has storage schema version \(version); this Tandem knows version \(currentSchemaVersion)")
            }
            try exec("COMMIT", operation)
        } catch {
            if sqlite3_get_autocommit(db) == 0 { try? exec("ROLLBACK", operation) }
            throw error
        }
    }

    /// Runs SQL text (several statements allowed) uncached; for setup and tests.
    func exec(_ sql: String, _ operation: String) throws(StorageError) {
        guard let db else { throw closed(operation) }
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let reason = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            throw StorageError(path: path, operation: operation, code: rc, reason: reason)
        }
    }

    /// `body` in one write transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ operation: String, _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try between(.begin, operation, body)
    }

    /// `body` in one read transaction, so several statements see one state of the file.
    func read<T>(_ operation: String, _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try between(.beginRead, operation, body)
    }

    private func between<T>(_ begin: SQL, _ operation: String, _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try run(begin, operation) { s throws(StorageError) in _ = try step(s, operation) }
        do throws(StorageError) {
            let result = try body()
            try run(.commit, operation) { s throws(StorageError) in _ = try step(s, operation) }
            return result
        } catch {
            // Every statement has been reset by `run`, so the rollback cannot be blocked by one.
            if let db, sqlite3_get_autocommit(db) == 0 {
                try? run(.rollback, operation) { s throws(StorageError) in _ = try step(s, operation) }
            }
            throw error
        }
    }

    /// Runs `body` with the cached statement for `sql`, then resets it and clears its bindings.
    func run<T>(_ sql: SQL, _ operation: String, _ body: (Statement) throws(StorageError) -> T) throws(StorageError) -> T {
        let statement = try prepared(sql, operation)
        defer {
            sqlite3_reset(statement.handle)
            sqlite3_clear_bindings(statement.handle)
        }
        return try body(statement)
    }

    private func prepared(_ sql: SQL, _ operation: String) throws(StorageError) -> Statement {
        if let statement = statements[sql] { return statement }
        guard let db else { throw closed(operation) }
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql.rawValue, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard rc == SQLITE_OK, let handle else { throw failure(operation, rc) }
        let statement = Statement(handle: handle)
        statements[sql] = statement
        return statement
    }

    /// Steps once: `true` with a row to read, `false` when done.
    func step(_ statement: Statement, _ operation: String) throws(StorageError) -> Bool {
        switch sqlite3_step(statement.handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw failure(operation, rc)
        }
    }

    /// The rows the last statement inserted, changed or deleted.
    func changes() -> Int {
        db.map { Int(sqlite3_changes($0)) } ?? 0
    }

    /// Checks the result codes of a statement's binds.
    func bound(_ operation: String, _ codes: Int32...) throws(StorageError) {
        for rc in codes where rc != SQLITE_OK { throw failure(operation, rc) }
    }

    func failure(_ operation: String, _ rc: Int32) -> StorageError {
        let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return StorageError(path: path, operation: operation, code: rc, reason: reason)
    }

    func refusal(_ operation: String, _ reason: String) -> StorageError {
        StorageError(path: path, operation: operation, reason: reason)
    }

    private func closed(_ operation: String) -> StorageError {
        StorageError(path: path, operation: operation, reason: "the storage is closed")
    }

    // MARK: files

    /// `mkdir -p` of the folder `path` is in.
    private static func createFolder(containing path: String) throws(StorageError) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let folder = String(path[..<slash])
        var prefix = ""
        for (k, part) in folder.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            if k > 0 { prefix += "/" }
            prefix += part
            if part.isEmpty || part == "." || part == ".." { continue }
            guard mkdir(prefix, 0o755) != 0 else { continue }
            let code = errno
            if code == EEXIST && isFolder(prefix) { continue }
            let why = String(cString: strerror(code == EEXIST ? ENOTDIR : code))
            throw StorageError(path: path, operation: "create folder \(folder)", reason: "cannot create \(prefix): \(why)")
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & 0o170000) == 0o040000
    }
}

/// A control of a room, as `append` coalesces them.
private struct ControlKey: Hashable {
    var room: String
    var control: String
}
