import CSQLite
import Foundation
import Testing
import TandemCore
@testable import TandemStorage

/// When the disk fills or fails (docs/storage.md): what a failure is, the
/// probe write, a file deleted under the server, a full file's append that
/// writes nothing, and the room going back to what the file holds.
@Suite("Storage durability")
struct DurabilityTests {
    @Test("failures are told apart by SQLite's primary code")
    func classification() {
        func failure(_ code: Int32?) -> StorageFailure {
            StorageError(path: "x", operation: "append 1 commit", code: code, reason: "r").failure
        }
        #expect(failure(SQLITE_FULL) == .diskFull)
        #expect(failure(778) == .ioError) // SQLITE_IOERR_WRITE
        #expect(failure(1034) == .ioError) // SQLITE_IOERR_FSYNC
        #expect(failure(SQLITE_BUSY) == .busy)
        #expect(failure(SQLITE_READONLY) == .unwritable)
        #expect(failure(SQLITE_CORRUPT) == .corrupt)
        #expect(failure(SQLITE_NOTADB) == .corrupt)
        #expect(failure(nil) == .refused)
        #expect(StorageError(path: "x", operation: "o", code: SQLITE_FULL, reason: "r").cause == "disk full")
        #expect(StorageError(path: "x", operation: "o", code: 778, reason: "r").cause == "I/O error")
    }

    @Test("the probe writes one meta row; a file deleted or replaced under it is noticed")
    func probeAndFile() throws {
        try withTempFolder { folder in
            let path = folder + "/tandem.db"
            let storage = try Storage(path: path)
            try storage.probe()
            try storage.probe() // the same row again
            #expect(storage.fileProblem() == nil)
            try FileManager.default.removeItem(atPath: path)
            #expect(storage.fileProblem()?.contains("was deleted") == true)
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            #expect(storage.fileProblem()?.contains("was replaced") == true)
            storage.close()
            #expect(try Storage(path: ":memory:").fileProblem() == nil)
        }
    }

    @Test("a full file: append throws diskFull and writes nothing; with room again the same batch goes in")
    func fullFile() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db")
            try storage.saveRoom(.demo)
            try storage.append([commit(1, "gain", demoState("gain", nil, 0.1))])
            let pages = try #require(Int(try storage.pragma("page_count").first ?? ""))
            _ = try storage.pragma("max_page_count = \(pages)")
            // Rows big enough to need pages the file may not have.
            let big = (2...200).map { commit($0, "gain", demoState("gain", nil, Double($0) / 1000), client: String(repeating: "c", count: 500)) }
            let error = try #require(throws: StorageError.self) { try storage.append(big) }
            #expect(error.failure == .diskFull, "\(error)")
            #expect(try storage.loadRoom("demo")?.revision == 1)
            #expect(try storage.history(room: "demo", since: 0, limit: 1000).count == 1)
            #expect(throws: StorageError.self) { try storage.probe() } // the probe needs pages as a batch does
            _ = try storage.pragma("max_page_count = 1073741823")
            try storage.probe()
            try storage.append(big)
            #expect(try storage.loadRoom("demo")?.revision == 200)
            #expect(try storage.history(room: "demo", since: 0, limit: 1000).count == 200)
        }
    }

    @Test("a room put back after a failed write: its revision, states, history; a reject ahead of the ack")
    func rollBack() throws {
        var room = Room(schema: .demo)
        let now = Moment.seconds(1)
        _ = room.join("ann", name: "Ann", at: now)
        _ = room.join("bob", name: "Bob", at: now)
        room.markDurable()
        _ = room.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.7))), from: "ann", at: now)
        room.markDurable() // written
        while room.nextFrame(for: "ann") != nil {}
        while room.nextFrame(for: "bob") != nil {}

        room.withholdFrames()
        _ = room.apply(ClientMessage(seq: 2, .set(control: "gain", thumb: nil, value: .number(0.9))), from: "ann", at: now)
        _ = room.apply(ClientMessage(seq: 3, .drag(control: "size", thumb: nil, phase: .begin, pointer: nil)), from: "bob", at: now)
        _ = room.apply(ClientMessage(seq: 4, .step(control: "size", thumb: nil, by: 1, byY: nil)), from: "ann", at: now) // busy: Bob holds it
        #expect(room.revision == 2 && room.hasUnwrittenCommits)

        let effects = room.rollBack(code: .unavailable, message: "the server could not store this change (disk full); nothing changed, try again")
        room.releaseFrames()
        #expect(effects == [.reject(Reject(to: "ann", seq: 2, code: .unavailable,
                                           message: "the server could not store this change (disk full); nothing changed, try again"))])
        #expect(room.revision == 1 && !room.hasUnwrittenCommits)
        let gain = try #require(room.schema.index(of: "gain"))
        #expect(room.committed[gain] == demoState("gain", nil, 0.7) && room.revisions[gain] == 1)

        // Ann: the busy reject, then the storage reject, then an update with the ack of 4 and gain back at 0.7.
        guard case let .reject(busy)? = room.nextFrame(for: "ann"), busy.code == .busy,
              case let .reject(unstored)? = room.nextFrame(for: "ann"), unstored.seq == 2,
              case let .update(update)? = room.nextFrame(for: "ann") else {
            Issue.record("Ann's frames are not two rejects and an update")
            return
        }
        #expect(update.ack == 4 && update.revision == 1)
        #expect(update.changes.contains { $0.control == "gain" && $0.state == demoState("gain", nil, 0.7) && $0.revision == 1 })
        // Bob's drag stands (previews need no disk), acknowledged; he sees gain at 0.7, never 0.9.
        guard case let .update(bobs)? = room.nextFrame(for: "bob") else {
            Issue.record("Bob has no update")
            return
        }
        #expect(bobs.ack == 3 && bobs.gestures.contains { $0.entry.control == "size" && $0.entry.phase == .begin })
        #expect(!bobs.changes.contains { $0.state == demoState("gain", nil, 0.9) })

        // The refused set is not in Ann's history: her undo takes back the written one.
        _ = room.apply(ClientMessage(seq: 5, .undo), from: "ann", at: now)
        #expect(room.committed[gain] == demoState("gain", nil, 0.5) && room.revision == 2)
    }
}
