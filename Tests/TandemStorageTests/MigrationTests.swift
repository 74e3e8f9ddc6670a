import CSQLite
import Foundation
import Testing
import TandemCore
@testable import TandemStorage

/// Storage schema version 2: files of version 1 migrate on open, and one
/// revision may log several controls (a batch: a preset's recall).
@Suite("Storage migration and batches")
struct MigrationTests {
    /// The tables of storage schema version 1, as Tandem created them before
    /// batches (commit 6958548): one log row per revision.
    static let version1Tables = """
        CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT, WITHOUT ROWID;
        CREATE TABLE rooms(
            id TEXT PRIMARY KEY NOT NULL,
            schema TEXT NOT NULL,
            revision INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE controls(
            room TEXT NOT NULL,
            id TEXT NOT NULL,
            state TEXT NOT NULL,
            revision INTEGER NOT NULL,
            PRIMARY KEY(room, id)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE commits(
            room TEXT NOT NULL,
            revision INTEGER NOT NULL,
            control TEXT NOT NULL,
            state TEXT NOT NULL,
            client TEXT NOT NULL,
            name TEXT NOT NULL,
            time INTEGER NOT NULL,
            PRIMARY KEY(room, revision)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO meta(key, value) VALUES('schema_version', '1');
        """

    /// Writes a version 1 file at `path` with the demo room at revision 3:
    /// size at index 4 (rev 1), gain at 0.73 (rev 2), size back to index 0 (rev 3).
    static func writeVersion1File(_ path: String) throws {
        let schema = String(decoding: SchemaCodec.encode(.demo), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
        let sql = version1Tables + """
            INSERT INTO rooms(id, schema, revision) VALUES('demo', '\(schema)', 3);
            INSERT INTO controls(room, id, state, revision) VALUES('demo', 'size', '{"index":0,"value":20}', 3);
            INSERT INTO controls(room, id, state, revision) VALUES('demo', 'gain', '{"value":0.73}', 2);
            INSERT INTO commits VALUES('demo', 1, 'size', '{"index":4,"value":100}', 'c1', 'Ann', 1700000000000);
            INSERT INTO commits VALUES('demo', 2, 'gain', '{"value":0.73}', 'c2', 'Ben', 1700000001000);
            INSERT INTO commits VALUES('demo', 3, 'size', '{"index":0,"value":20}', 'c1', 'Ann', 1700000002000);
            """
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw CocoaError(.fileWriteUnknown) }
        defer { sqlite3_close(db) }
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        if rc != SQLITE_OK {
            Issue.record("version 1 file: \(message.map { String(cString: $0) } ?? "rc \(rc)")")
        }
    }

    @Test("a version 1 file opens, migrates to version 3, and keeps its rooms, states and commits")
    func migratesVersion1() throws {
        try withTempFolder { folder in
            let path = folder + "/old.db"
            try Self.writeVersion1File(path)
            let storage = try Storage(path: path)
            #expect(try sqliteRows(path, "SELECT value FROM meta WHERE key = 'schema_version'") == ["3"])
            let room = try #require(try storage.loadRoom("demo"))
            #expect(room.revision == 3)
            #expect(room.committed[RoomSchema.demo.index(of: "size")!] == .snap(index: 0, value: 20))
            #expect(room.committed[RoomSchema.demo.index(of: "gain")!] == .slider(value: 0.73))
            #expect(room.revisions == [3, 0, 0, 2, 0])
            let log = try storage.history(room: "demo", since: 0, limit: 100)
            #expect(log == [
                commit(1, "size", .snap(index: 4, value: 100), client: "c1", name: "Ann", time: 1_700_000_000_000),
                commit(2, "gain", .slider(value: 0.73), client: "c2", name: "Ben", time: 1_700_000_001_000),
                commit(3, "size", .snap(index: 0, value: 20), client: "c1", name: "Ann", time: 1_700_000_002_000),
            ])
            // The new tables are there, empty.
            #expect(try sqliteRows(path, "SELECT count(*) FROM presets") == ["0"])
            #expect(try sqliteRows(path, "SELECT count(*) FROM snapshots") == ["0"])
            #expect(try sqliteRows(path, "SELECT count(*) FROM series") == ["0"])
            // The log's key now lets one revision hold several controls.
            #expect(try sqliteRows(path, "SELECT name FROM pragma_table_info('commits') WHERE pk > 0 ORDER BY pk")
                == ["room", "revision", "control"])
            #expect(try storage.integrityCheck() == "ok")
        }
    }

    @Test("a migrated file takes a batch, and opens again at version 3 with everything in it")
    func migratedFileTakesBatches() throws {
        try withTempFolder { folder in
            let path = folder + "/old.db"
            try Self.writeVersion1File(path)
            do {
                let storage = try Storage(path: path)
                try storage.append([commit(4, "gain", .slider(value: 0.1)), commit(4, "size", .snap(index: 2, value: 60))])
                storage.close()
            }
            let storage = try Storage(path: path)
            #expect(try sqliteRows(path, "SELECT value FROM meta WHERE key = 'schema_version'") == ["3"])
            let log = try storage.history(room: "demo", since: 0, limit: 100)
            #expect(log.map(\.revision) == [1, 2, 3, 4, 4])
            #expect(try storage.loadRoom("demo")?.revision == 4)
        }
    }

    @Test("two commits at one revision for different controls append in one call, one log row each")
    func batchInOneCall() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.append([commit(1, "gain", .slider(value: 0.2))])
        try storage.append([
            commit(2, "gain", .slider(value: 0.9), time: 1_700_000_005_000),
            commit(2, "size", .snap(index: 4, value: 100), time: 1_700_000_005_000),
            commit(2, "blanks", .range(RangeState(lower: 2, upper: 3)), time: 1_700_000_005_000),
        ])
        let room = try #require(try storage.loadRoom("demo"))
        #expect(room.revision == 2)
        #expect(room.revisions == [2, 2, 0, 2, 0])
        #expect(room.committed[RoomSchema.demo.index(of: "gain")!] == .slider(value: 0.9))
        let log = try storage.history(room: "demo", since: 1, limit: 100)
        #expect(log.map(\.revision) == [2, 2, 2])
        #expect(log.map(\.control) == ["blanks", "gain", "size"]) // by revision, then control
        // A page never ends inside a revision: the next one goes on after it and misses nothing.
        #expect(try storage.history(room: "demo", since: 0, limit: 2).map(\.revision) == [1])
        #expect(try storage.history(room: "demo", since: 0, limit: 4).map(\.revision) == [1, 2, 2, 2])
        #expect(try storage.history(room: "demo", since: 1, limit: 1).map(\.control) == ["blanks", "gain", "size"])
        #expect(try storage.history(room: "demo", since: 2, limit: 1).isEmpty)
    }

    @Test("a later call reusing a revision already written is refused, and writes nothing")
    func laterReuseRefused() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.append([commit(1, "gain", .slider(value: 0.2)), commit(1, "size", .snap(index: 0, value: 20))])
        #expect(throws: StorageError.self) {
            try storage.append([commit(1, "color", demoState("color", .red, 1))])
        }
        // Nor as the first of a batch that goes on to a new revision.
        let error = #expect(throws: StorageError.self) {
            try storage.append([commit(1, "blanks", .range(RangeState(lower: 2, upper: 3))), commit(2, "gain", .slider(value: 0.4))])
        }
        #expect(error?.description.contains("not new") == true)
        let room = try #require(try storage.loadRoom("demo"))
        #expect(room.revision == 1)
        #expect(room.committed[RoomSchema.demo.index(of: "gain")!] == .slider(value: 0.2))
        #expect(try storage.history(room: "demo", since: 0, limit: 100).count == 2)
    }

    @Test("one control twice at one revision is refused whole: nothing of the call is written")
    func sameControlTwiceRefused() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        #expect(throws: StorageError.self) {
            try storage.append([commit(1, "size", .snap(index: 1, value: 40)), commit(1, "gain", .slider(value: 0.3)),
                                commit(1, "gain", .slider(value: 0.4))])
        }
        #expect(try storage.loadRoom("demo")?.revision == 0)
        #expect(try storage.history(room: "demo", since: 0, limit: 100).isEmpty)
    }

    @Test("a revision below the last one of the same call is refused")
    func descendingInOneCall() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        #expect(throws: StorageError.self) {
            try storage.append([commit(2, "size", .snap(index: 1, value: 40)), commit(1, "gain", .slider(value: 0.3))])
        }
        #expect(try storage.history(room: "demo", since: 0, limit: 100).isEmpty)
    }
}

/// The first column of every row of `sql`, as text, read through a connection of its own.
func sqliteRows(_ path: String, _ sql: String) throws -> [String] {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
        Issue.record("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        return []
    }
    defer { sqlite3_finalize(statement) }
    var rows: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
    }
    return rows
}
