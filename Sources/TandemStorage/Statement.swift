import CSQLite

/// Every statement storage runs, prepared once per connection and reused.
enum SQL: String, CaseIterable {
    /// Takes the write lock up front, so a batch never fails half-way for want of it.
    case begin = "BEGIN IMMEDIATE"
    /// A consistent read of several statements.
    case beginRead = "BEGIN"
    case commit = "COMMIT"
    case rollback = "ROLLBACK"

    case schemaVersion = "SELECT value FROM meta WHERE key = 'schema_version'"
    /// A write the size of a batch: whether the file takes writes (`Storage.probe`).
    case probe = "INSERT INTO meta(key, value) VALUES('probe', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value"

    /// A new room continues after any history its id already has, so a room
    /// deleted and made again never reuses a revision.
    case upsertRoom = """
        INSERT INTO rooms(id, schema, revision)
        VALUES(?1, ?2, (SELECT coalesce(max(revision), 0) FROM commits WHERE room = ?1))
        ON CONFLICT(id) DO UPDATE SET schema = excluded.schema
        """
    case deleteRoom = "DELETE FROM rooms WHERE id = ?1"
    case selectRooms = "SELECT id, schema, revision FROM rooms ORDER BY id"
    case selectRoom = "SELECT id, schema, revision FROM rooms WHERE id = ?1"
    case roomRevision = "SELECT revision FROM rooms WHERE id = ?1"
    case setRoomRevision = "UPDATE rooms SET revision = ?2 WHERE id = ?1"

    case selectControls = "SELECT id, state, revision FROM controls WHERE room = ?1"
    case upsertControl = """
        INSERT INTO controls(room, id, state, revision) VALUES(?1, ?2, ?3, ?4)
        ON CONFLICT(room, id) DO UPDATE SET state = excluded.state, revision = excluded.revision
        """
    case deleteControl = "DELETE FROM controls WHERE room = ?1 AND id = ?2"
    case deleteControls = "DELETE FROM controls WHERE room = ?1"

    case insertCommit = """
        INSERT INTO commits(room, revision, control, state, client, name, time)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)
        """
    /// Everything up to and including the `?2 + 1`-th newest revision.
    case pruneKeepingLast = """
        DELETE FROM commits WHERE room = ?1 AND revision <= (
            SELECT revision FROM commits WHERE room = ?1 ORDER BY revision DESC LIMIT 1 OFFSET ?2)
        """
    case pruneBefore = "DELETE FROM commits WHERE room = ?1 AND time < ?2"
    // Bounded retention passes (Storage+Retention.swift).
    /// The `?2`-th oldest row's revision and time (`?2` index steps).
    case commitAtOffset = "SELECT revision, time FROM commits WHERE room = ?1 ORDER BY revision LIMIT 1 OFFSET ?2"
    /// The first revision up to `?2` logged at or after time `?3`.
    case firstAtOrAfterTime = "SELECT revision FROM commits WHERE room = ?1 AND revision <= ?2 AND time >= ?3 ORDER BY revision LIMIT 1"
    case pruneBelow = "DELETE FROM commits WHERE room = ?1 AND revision < ?2"

    case selectPresets = "SELECT name, states, client, by_name, time FROM presets WHERE room = ?1 ORDER BY name"
    case upsertPreset = """
        INSERT INTO presets(room, name, states, client, by_name, time) VALUES(?1, ?2, ?3, ?4, ?5, ?6)
        ON CONFLICT(room, name) DO UPDATE SET
            states = excluded.states, client = excluded.client, by_name = excluded.by_name, time = excluded.time
        """
    case renamePreset = "UPDATE presets SET name = ?3 WHERE room = ?1 AND name = ?2"
    case deletePreset = "DELETE FROM presets WHERE room = ?1 AND name = ?2"
    case deletePresets = "DELETE FROM presets WHERE room = ?1"
    // Series (Storage+Series.swift): one row per bucket place, so a control's rows are bounded.
    case upsertSeriesBucket = """
        INSERT INTO series(room, control, tier, slot, width, start, min, max, last, count)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        ON CONFLICT(room, control, tier, slot) DO UPDATE SET width = excluded.width, start = excluded.start,
            min = excluded.min, max = excluded.max, last = excluded.last, count = excluded.count
        """
    case selectSeries = "SELECT control, tier, width, start, min, max, last, count FROM series WHERE room = ?1"
    case deleteSeries = "DELETE FROM series WHERE room = ?1"
    // The timeline (Storage+Timeline.swift).
    /// A page of history ends at a whole revision: every row of the revision
    /// the `?3`-th row belongs to (a batch logs several), trimmed in Swift.
    case selectHistoryPage = """
        SELECT revision, control, state, client, name, time FROM commits
        WHERE room = ?1 AND revision > ?2 AND revision <= (
            SELECT max(revision) FROM (SELECT revision FROM commits WHERE room = ?1 AND revision > ?2
                                       ORDER BY revision, control LIMIT ?3))
        ORDER BY revision, control
        """
    case insertSnapshot = "INSERT OR REPLACE INTO snapshots(room, revision, states) VALUES(?1, ?2, ?3)"
    case snapshotAtOrBefore = """
        SELECT revision, states FROM snapshots WHERE room = ?1 AND revision <= ?2 ORDER BY revision DESC LIMIT 1
        """
    case newestSnapshotRevision = "SELECT revision FROM snapshots WHERE room = ?1 ORDER BY revision DESC LIMIT 1"
    /// The log rows after revision `?2`, counted up to `?3` at most.
    case rowsAfter = "SELECT count(*) FROM (SELECT 1 FROM commits WHERE room = ?1 AND revision > ?2 LIMIT ?3)"
    case controlCount = "SELECT count(*) FROM controls WHERE room = ?1"
    case firstSnapshotFrom = "SELECT min(revision) FROM snapshots WHERE room = ?1 AND revision >= ?2"
    case deleteSnapshotsBefore = "DELETE FROM snapshots WHERE room = ?1 AND revision < ?2"
    case commitsBetween = """
        SELECT revision, control, state FROM commits WHERE room = ?1 AND revision > ?2 AND revision <= ?3
        ORDER BY revision, control
        """
    /// Two index seeks (a `min` and a `max` in one statement would scan the room's rows).
    case oldestLogged = "SELECT revision FROM commits WHERE room = ?1 ORDER BY revision LIMIT 1"
    case newestLogged = "SELECT revision FROM commits WHERE room = ?1 ORDER BY revision DESC LIMIT 1"
    /// Who made a revision and when: one of its rows (a batch's share both).
    case revisionRow = "SELECT time, name, client FROM commits WHERE room = ?1 AND revision = ?2 LIMIT 1"
    /// The first logged revision at or after `?2`, for the timeline's marks.
    case markFrom = "SELECT revision, time FROM commits WHERE room = ?1 AND revision >= ?2 ORDER BY revision LIMIT 1"
    /// The oldest revision a prune leaves: above the `?2 + 1`-th newest row's
    /// revision (`?2` < 0: no such bound) and at or after time `?3`.
    case pruneSurvivor = """
        SELECT min(revision) FROM commits WHERE room = ?1 AND time >= ?3 AND revision >= ?4 AND revision > (CASE WHEN ?2 < 0 THEN -1 ELSE
            coalesce((SELECT revision FROM commits WHERE room = ?1 ORDER BY revision DESC LIMIT 1 OFFSET ?2), -1) END)
        """
}

/// The tables, created once in an empty file; `meta.schema_version` says which.
let currentSchemaVersion = 3
let createTables = """
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
    \(commitsTable("commits"))
    \(presetAndSnapshotTables)
    \(seriesTable)
    INSERT INTO meta(key, value) VALUES('schema_version', '\(currentSchemaVersion)');
    """

/// The commit log (version 2: one revision may log several controls), as `name`.
func commitsTable(_ name: String) -> String {
    """
    CREATE TABLE \(name)(
        room TEXT NOT NULL,
        revision INTEGER NOT NULL,
        control TEXT NOT NULL,
        state TEXT NOT NULL,
        client TEXT NOT NULL,
        name TEXT NOT NULL,
        time INTEGER NOT NULL,
        PRIMARY KEY(room, revision, control)
    ) STRICT, WITHOUT ROWID;
    """
}

/// Version 2: a revision may log several controls (a batch: a preset's
/// recall, a restored moment); presets; state snapshots for the timeline.
let presetAndSnapshotTables = """
    CREATE TABLE presets(
        room TEXT NOT NULL,
        name TEXT NOT NULL,
        states TEXT NOT NULL,
        client TEXT NOT NULL,
        by_name TEXT NOT NULL,
        time INTEGER NOT NULL,
        PRIMARY KEY(room, name)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE snapshots(
        room TEXT NOT NULL,
        revision INTEGER NOT NULL,
        states TEXT NOT NULL,
        PRIMARY KEY(room, revision)
    ) STRICT, WITHOUT ROWID;
    """

/// Version 3: each control's time series, one row per bucket place
/// (`SeriesTier.slot`), so a control never has more rows than its tiers' capacities.
let seriesTable = """
    CREATE TABLE series(
        room TEXT NOT NULL,
        control TEXT NOT NULL,
        tier INTEGER NOT NULL,
        slot INTEGER NOT NULL,
        width INTEGER NOT NULL,
        start INTEGER NOT NULL,
        min REAL NOT NULL,
        max REAL NOT NULL,
        last REAL NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY(room, control, tier, slot)
    ) STRICT, WITHOUT ROWID;
    """

/// Brings a version 2 file to version 3, in the caller's transaction.
let migrationFrom2 = """
    \(seriesTable)
    UPDATE meta SET value = '3' WHERE key = 'schema_version';
    """

/// Brings a version 1 file to version 2, in the caller's transaction.
let migrationFrom1 = """
    \(commitsTable("commits_v2"))
    INSERT INTO commits_v2 SELECT room, revision, control, state, client, name, time FROM commits;
    DROP TABLE commits;
    ALTER TABLE commits_v2 RENAME TO commits;
    \(presetAndSnapshotTables)
    UPDATE meta SET value = '2' WHERE key = 'schema_version';
    """

/// One prepared statement: bind, step, read columns. `Storage.run` resets it after use.
struct Statement {
    let handle: OpaquePointer

    func bind(_ index: Int32, _ value: Int) -> Int32 {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Int64) -> Int32 {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { bind(index, $0) }
    }

    /// UTF-8 bytes as TEXT, copied by SQLite.
    func bind(_ index: Int32, _ utf8: [UInt8]) -> Int32 {
        utf8.withUnsafeBufferPointer { bind(index, $0) }
    }

    private func bind(_ index: Int32, _ utf8: UnsafeBufferPointer<UInt8>) -> Int32 {
        // An empty buffer may have no address, and a NULL pointer would bind SQL NULL.
        guard let base = utf8.baseAddress, !utf8.isEmpty else {
            return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
        }
        return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(utf8.count), csqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    func bind(_ index: Int32, _ value: Double) -> Int32 {
        sqlite3_bind_double(handle, index, value)
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func text(_ column: Int32) -> String {
        withBytes(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// The column's UTF-8 bytes, valid only inside `body`.
    func withBytes<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        guard let text = sqlite3_column_text(handle, column) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let count = Int(sqlite3_column_bytes(handle, column))
        return body(UnsafeBufferPointer(start: text, count: count))
    }
}
