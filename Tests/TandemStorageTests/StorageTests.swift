import Foundation
import Testing
import TandemCore
@testable import TandemStorage

@Suite("Storage")
struct StorageTests {
    /// A committed state for every demo control, each different from its initial state.
    static let demoCommits: [StoredCommit] = [
        commit(1, "size", demoState("size", .index, 100)),
        commit(2, "blanks", demoState("blanks", .upper, 3)),
        commit(3, "color", demoState("color", .green, 0.8)),
        commit(4, "gain", demoState("gain", nil, 0.73)),
        commit(5, "bpm", demoState("bpm", nil, 120)),
        commit(6, "blanks", .range(RangeState(lower: 1, upper: 3))),
    ]

    @Test("the demo room saves and loads with its committed states and per-control revisions")
    func demoRoundTrip() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db")
            try storage.saveRoom(.demo)
            let fresh = try #require(try storage.loadRooms().first)
            #expect(fresh == StoredRoom(schema: .demo, committed: RoomSchema.demo.controls.map(\.initial), revisions: [0, 0, 0, 0, 0], revision: 0))

            try storage.append(Self.demoCommits)
            let rooms = try storage.loadRooms()
            #expect(rooms.count == 1)
            let room = try #require(rooms.first)
            #expect(room.schema == .demo)
            #expect(room.revision == 6)
            #expect(room.revisions == [1, 6, 3, 4, 5])
            #expect(room.committed == [
                .snap(index: 4, value: 100), .range(RangeState(lower: 1, upper: 3)), demoState("color", .green, 0.8),
                demoState("gain", nil, 0.73), demoState("bpm", nil, 120),
            ])
            #expect(try storage.loadRoom("demo") == room)
            #expect(try storage.loadRoom("nope") == nil)

            // The restore initializer takes it as is.
            let restored = Room(room)
            #expect(restored.revision == 6 && restored.committed == room.committed && restored.revisions == room.revisions)
        }
    }

    @Test("batches appended, the file closed and opened again: the same states, revisions and log")
    func reopen() throws {
        try withTempFolder { folder in
            let path = folder + "/data/tandem.db"
            let before: [StoredRoom]
            do {
                let storage = try Storage(path: path)
                try storage.saveRoom(.demo)
                let other = try schema("other", [ControlDefinition(id: "x", type: "slider", min: 0, max: 10, step: 1)])
                try storage.saveRoom(other)
                try storage.append(Array(Self.demoCommits[0..<2]))
                try storage.append(Array(Self.demoCommits[2...]) + [commit(1, "x", .slider(value: 7), room: "other")])
                try storage.append([commit(7, "size", .snap(index: 0, value: 20))])
                before = try storage.loadRooms()
                storage.close()
            }
            let storage = try Storage(path: path)
            let after = try storage.loadRooms()
            #expect(after == before)
            #expect(after.map(\.id) == ["demo", "other"])
            #expect(after.map(\.revision) == [7, 1])
            #expect(after[0].committed[0] == .snap(index: 0, value: 20))
            #expect(after[1].committed == [.slider(value: 7)])
            #expect(try storage.history(room: "demo", since: 0, limit: 100) == Self.demoCommits + [commit(7, "size", .snap(index: 0, value: 20))])
            #expect(try storage.integrityCheck() == "ok")
        }
    }

    @Test("history is the commits after since, oldest first, at most limit, with every field as appended")
    func history() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let commits = gainCommits(count: 30).enumerated().map { k, c in
            var c = c
            c.client = "c\(k % 3)"
            c.name = ["Ann", "", "Zoë \"the\" Tester"][k % 3]
            return c
        }
        try storage.append(commits)
        #expect(try storage.history(room: "demo", since: 0, limit: 1000) == commits)
        #expect(try storage.history(room: "demo", since: 10, limit: 5).map(\.revision) == [11, 12, 13, 14, 15])
        #expect(try storage.history(room: "demo", since: 28, limit: 5).map(\.revision) == [29, 30])
        #expect(try storage.history(room: "demo", since: 30, limit: 5).isEmpty)
        #expect(try storage.history(room: "demo", since: -5, limit: 1).map(\.revision) == [1])
        #expect(try storage.history(room: "demo", since: 0, limit: 0).isEmpty)
        #expect(try storage.history(room: "nope", since: 0, limit: 10).isEmpty)
        #expect(try storage.history(room: "demo", since: 1, limit: 2) == Array(commits[1...2]))
    }

    @Test("prune keeps the newest N, or drops what is older than a time, or both, and says how many rows went")
    func prune() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.saveRoom(try schema("other", [ControlDefinition(id: "x", type: "slider", min: 0, max: 1)]))
        try storage.append(gainCommits(count: 100)) // times 1_700_000_001_000 ... 1_700_000_100_000
        try storage.append([commit(1, "x", .slider(value: 1), room: "other")])

        #expect(try storage.prune(room: "demo", keepLast: nil, olderThanMs: nil) == 0)
        #expect(try storage.prune(room: "demo", keepLast: 80, olderThanMs: nil) == 20)
        #expect(try storage.history(room: "demo", since: 0, limit: 1000).map(\.revision) == Array(21...100))
        #expect(try storage.prune(room: "demo", keepLast: 500, olderThanMs: nil) == 0)

        // Commit r was made at 1_700_000_000_000 + r s: before revision 31's time means revisions 21...30.
        #expect(try storage.prune(room: "demo", keepLast: nil, olderThanMs: 1_700_000_031_000) == 10)
        #expect(try storage.history(room: "demo", since: 0, limit: 1).map(\.revision) == [31])

        // Both: a row goes if either rule says so.
        #expect(try storage.prune(room: "demo", keepLast: 60, olderThanMs: 1_700_000_051_000) == 20)
        #expect(try storage.history(room: "demo", since: 0, limit: 1000).map(\.revision) == Array(51...100))

        #expect(try storage.prune(room: "demo", keepLast: 0, olderThanMs: nil) == 50)
        #expect(try storage.history(room: "demo", since: 0, limit: 1000).isEmpty)

        // Other rooms and the committed states are untouched; revisions do not go back.
        #expect(try storage.history(room: "other", since: 0, limit: 10).count == 1)
        let demo = try #require(try storage.loadRoom("demo"))
        #expect(demo.revision == 100)
        #expect(demo.committed[3] == demoState("gain", nil, 0))
        #expect(throws: StorageError.self) { try storage.append([commit(100, "gain", .slider(value: 0.5))]) }
        try storage.append([commit(101, "gain", .slider(value: 0.5))])
    }

    @Test("deleting a room forgets its schema and states but keeps its history; saved again, it continues its revisions")
    func deleteKeepsHistory() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db")
            try storage.saveRoom(.demo)
            try storage.append(Self.demoCommits)
            try storage.deleteRoom("demo")
            #expect(try storage.loadRooms().isEmpty)
            #expect(try storage.loadRoom("demo") == nil)
            #expect(try storage.history(room: "demo", since: 0, limit: 100) == Self.demoCommits)
            #expect(throws: StorageError.self) { try storage.append([commit(7, "gain", .slider(value: 0.1))]) }
            try storage.deleteRoom("never-saved")

            try storage.saveRoom(.demo)
            let again = try #require(try storage.loadRoom("demo"))
            #expect(again.committed == RoomSchema.demo.controls.map(\.initial))
            #expect(again.revisions == [0, 0, 0, 0, 0])
            #expect(again.revision == 6)
            try storage.append([commit(7, "gain", .slider(value: 0.1))])
            #expect(try storage.history(room: "demo", since: 5, limit: 10).map(\.revision) == [6, 7])
        }
    }

    @Test("a changed schema loads with the initial state of each control dropped, retyped or reshaped, and keeps the room revision")
    func changedSchema() throws {
        try withTempFolder { folder in
            let path = folder + "/tandem.db"
            let v1 = try schema("studio", [
                ControlDefinition(id: "keep", type: "slider", min: 0, max: 10, step: 1),
                ControlDefinition(id: "retype", type: "slider", min: 0, max: 10),
                ControlDefinition(id: "shrink", type: "slider", min: 0, max: 10),
                ControlDefinition(id: "drop", type: "range", scale: [0, 9]),
                ControlDefinition(id: "dial", type: "gauge", min: 0, max: 100),
            ])
            do {
                let storage = try Storage(path: path)
                try storage.saveRoom(v1)
                try storage.append([
                    commit(1, "keep", .slider(value: 4), room: "studio"),
                    commit(2, "retype", .slider(value: 5), room: "studio"),
                    commit(3, "shrink", .slider(value: 9), room: "studio"),
                    commit(4, "drop", .range(RangeState(lower: 2, upper: 8)), room: "studio"),
                    commit(5, "dial", .gauge(value: 50, fraction: 0.5), room: "studio"),
                ])
            }
            // As if the room's file changed while the server was down: the new schema is
            // written straight into the rooms table, no saveRoom, so the old rows all remain.
            let v2 = try schema("studio", [
                ControlDefinition(id: "dial", type: "gauge", min: 0, max: 200),
                ControlDefinition(id: "keep", type: "slider", min: 0, max: 10, step: 1),
                ControlDefinition(id: "retype", type: "snap", values: [5, 6]),
                ControlDefinition(id: "shrink", type: "slider", min: 0, max: 5, state: StateDefinition(value: 2)),
                ControlDefinition(id: "added", type: "color"),
            ])
            let storage = try Storage(path: path)
            let json = String(decoding: SchemaCodec.encode(v2), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
            try storage.exec("UPDATE rooms SET schema = '\(json)' WHERE id = 'studio'", "test")
            let room = try #require(try storage.loadRoom("studio"))
            #expect(room.schema == v2)
            #expect(room.revision == 5)
            #expect(room.committed == [
                .gauge(value: 50, fraction: 0.25), .slider(value: 4), .snap(index: 0, value: 5),
                .slider(value: 2), .color(RGB(red: 0, green: 0, blue: 0)),
            ])
            #expect(room.revisions == [5, 1, 0, 0, 0])

            // Saved properly, the dropped control's state is forgotten: re-added, it starts over.
            try storage.saveRoom(v2)
            try storage.saveRoom(v1)
            let back = try #require(try storage.loadRoom("studio"))
            #expect(back.committed[3] == .range(RangeState(lower: 0, upper: 1)))
            #expect(back.committed[0] == .slider(value: 4))
            #expect(back.revision == 5)
            // The log still reads, whatever the controls are now.
            #expect(try storage.history(room: "studio", since: 0, limit: 10).count == 5)
        }
    }

    @Test("a stored state that is not a state at all loads as the initial state")
    func garbageState() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.append(Self.demoCommits)
        try storage.exec("UPDATE controls SET state = 'not json' WHERE id = 'gain'", "test")
        let room = try #require(try storage.loadRoom("demo"))
        #expect(room.committed[3] == demoControl("gain").initial)
        #expect(room.revisions[3] == 0)
        #expect(room.committed[0] == .snap(index: 4, value: 100))
    }

    @Test("a revision already stored is refused, and a batch with one bad commit writes nothing at all")
    func allOrNothing() throws {
        try withTempFolder { folder in
            let path = folder + "/tandem.db"
            let storage = try Storage(path: path)
            try storage.saveRoom(.demo)
            try storage.append(Array(Self.demoCommits[0..<3]))
            let before = try storage.loadRooms()

            let duplicate = #expect(throws: StorageError.self) {
                try storage.append([commit(3, "gain", .slider(value: 0.1))])
            }
            #expect(duplicate?.description.contains(path) == true)
            #expect(duplicate?.description.contains("revision 3 of room 'demo' is not new") == true)

            let batches: [[StoredCommit]] = [
                // good, good, then a duplicate of one earlier in the same batch
                [commit(4, "gain", .slider(value: 0.1)), commit(5, "bpm", .gauge(value: 1, fraction: 1.0 / 170)), commit(4, "size", .snap(index: 0, value: 20))],
                // good, then a duplicate of a stored revision
                [commit(4, "gain", .slider(value: 0.1)), commit(2, "size", .snap(index: 0, value: 20))],
                // good, then a room that is not saved
                [commit(4, "gain", .slider(value: 0.1)), commit(1, "x", .slider(value: 1), room: "unsaved")],
                // good, then revision 0
                [commit(4, "gain", .slider(value: 0.1)), commit(0, "gain", .slider(value: 0.2), room: "demo")],
            ]
            for batch in batches {
                #expect(throws: StorageError.self) { try storage.append(batch) }
                #expect(try storage.loadRooms() == before)
                #expect(try storage.history(room: "demo", since: 0, limit: 100) == Array(Self.demoCommits[0..<3]))
                #expect(try storage.history(room: "unsaved", since: 0, limit: 100).isEmpty)
            }
            // The connection is still usable afterwards, with no transaction left open.
            try storage.append(Array(Self.demoCommits[3...]))
            #expect(try storage.loadRoom("demo")?.revision == 6)
            storage.close()
            #expect(try Storage(path: path).loadRoom("demo")?.revision == 6)
        }
    }

    @Test("each durability mode opens in WAL with its synchronous level: 1 for normal, 2 for full", arguments: Durability.allCases)
    func durability(_ durability: Durability) throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db", durability: durability)
            #expect(try storage.pragma("journal_mode") == ["wal"])
            #expect(try storage.pragma("synchronous") == ["\(durability.synchronous)"])
            #expect(durability.synchronous == (durability == .normal ? 1 : 2))
            #expect(try storage.pragma("busy_timeout") == ["5000"])
            try storage.saveRoom(.demo)
            try storage.append(Self.demoCommits)
            #expect(try storage.integrityCheck() == "ok")
            #expect(FileManager.default.fileExists(atPath: folder + "/tandem.db-wal"))
            storage.close()
            // The last close checkpoints the log into the file and removes it.
            #expect(!FileManager.default.fileExists(atPath: folder + "/tandem.db-wal"))
            #expect(try Storage(path: folder + "/tandem.db", durability: durability).loadRoom("demo")?.revision == 6)
        }
    }

    @Test("the meta table records the storage schema version, and a file from a newer version is refused")
    func schemaVersion() throws {
        try withTempFolder { folder in
            let path = folder + "/tandem.db"
            let storage = try Storage(path: path)
            try storage.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'", "test")
            storage.close()
            let error = #expect(throws: StorageError.self) { try Storage(path: path) }
            #expect(error?.description.contains("schema version 99") == true)
        }
    }

    @Test("a folder that cannot be created is an error naming the path")
    func folderCannotBeCreated() throws {
        try withTempFolder { folder in
            try Data("a file, not a folder".utf8).write(to: URL(fileURLWithPath: folder + "/blocker"))
            let path = folder + "/blocker/sub/tandem.db"
            let error = #expect(throws: StorageError.self) { try Storage(path: path) }
            #expect(error?.path == path)
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("Not a directory") == true)
        }
    }

    @Test("missing folders are created, and a file that cannot be opened is an error with SQLite's reason")
    func foldersAndOpenErrors() throws {
        try withTempFolder { folder in
            let path = folder + "/a/b/c/tandem.db"
            _ = try Storage(path: path)
            #expect(FileManager.default.fileExists(atPath: path))
            try FileManager.default.createDirectory(atPath: folder + "/dir.db", withIntermediateDirectories: false)
            let error = #expect(throws: StorageError.self) { try Storage(path: folder + "/dir.db") }
            #expect(error?.description.contains(folder + "/dir.db") == true)
            #expect(error?.code != nil)
        }
    }

    @Test("a closed storage refuses every call instead of crashing")
    func closed() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        storage.close()
        storage.close()
        #expect(throws: StorageError.self) { try storage.loadRooms() }
        #expect(throws: StorageError.self) { try storage.append([commit(1, "gain", .slider(value: 0.1))]) }
        #expect(throws: StorageError.self) { try storage.integrityCheck() }
    }

    @Test("a commit from the room engine becomes a log row with the committer's name and time")
    func fromEffect() throws {
        var room = Room(schema: .demo)
        _ = room.join("c7", name: "Ann", at: Moment(nanoseconds: 0))
        let effects = room.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.25))), from: "c7", at: Moment(nanoseconds: 1))
        let commits = effects.compactMap { effect -> StoredCommit? in
            guard case let .commit(c) = effect else { return nil }
            return StoredCommit(room: room.id, c, name: "Ann", time: 1234)
        }
        #expect(commits == [commit(1, "gain", .slider(value: 0.25), client: "c7", time: 1234)])
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.append(commits)
        #expect(try storage.loadRoom("demo")?.committed[3] == .slider(value: 0.25))
        #expect(WallClock.milliseconds() > 1_700_000_000_000)
    }
}
