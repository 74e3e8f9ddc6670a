import Testing
import TandemCore
import TandemTestSupport
@testable import TandemStorage

/// The cost of a past state: a read replays a bounded
/// number of log rows after its snapshot, however long the log and however
/// many rows its revisions log (a batch logs one per control).
@Suite("Storage timeline cost")
struct TimelineCostTests {
    /// `count` revisions from `from`, each a batch of the demo's four batched controls (four rows).
    static func batches(from: Int = 1, count: Int, seed: UInt64 = 3) -> (commits: [StoredCommit], after: [Int: [String: ControlState]]) {
        var random = SplitMix64(seed: seed)
        var states: [String: ControlState] = [:]
        var commits: [StoredCommit] = []
        var after: [Int: [String: ControlState]] = [:]
        for r in from..<(from + count) {
            for id in ["blanks", "color", "gain", "size"] {
                let state = TimelineTests.randomState(id, &random)
                states[id] = state
                commits.append(commit(r, id, state, time: 1_700_000_000_000 + Int64(r)))
            }
            after[r] = states
        }
        return (commits, after)
    }

    func read(_ storage: Storage, _ revision: Int) throws -> TimelineMoment {
        guard case let .found(moment) = try storage.moment(room: "demo", at: revision) else {
            Issue.record("revision \(revision) not found")
            return TimelineMoment(revision: revision, states: [:])
        }
        return moment
    }

    @Test("in a batch-heavy room every revision is read right and replays at most maxReplayRows rows")
    func boundedReplay() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let (commits, after) = Self.batches(count: 1_600) // 6,400 rows: 2,000 between two revision snapshots
        try TimelineTests.appendInChunks(storage, commits)
        let bound = Storage.maxReplayRows(controls: RoomSchema.demo.controls.count)
        #expect(bound < 2 * Storage.snapshotRows)
        var most = 0
        for r in stride(from: 1, through: 1_600, by: 7) {
            let moment = try read(storage, r)
            #expect(moment.states == after[r], "revision \(r)")
            most = max(most, moment.logRowsRead)
        }
        #expect(most <= bound)
        // Before the row rule, revision 499 replayed its 499 revisions' 1,996 rows from 0.
        #expect(try read(storage, 499).logRowsRead <= bound)
        #expect(most > 0)
    }

    @Test("the rows since the newest snapshot are counted again from the file after a reopen")
    func boundedAcrossReopen() throws {
        try withTempFolder { folder in
            let path = folder + "/t.db"
            let (commits, after) = Self.batches(count: 400)
            let half = commits.firstIndex { $0.revision == 201 }!
            do {
                let storage = try Storage(path: path)
                try storage.saveRoom(.demo)
                try TimelineTests.appendInChunks(storage, Array(commits[..<half]))
            }
            let storage = try Storage(path: path)
            try TimelineTests.appendInChunks(storage, Array(commits[half...]))
            let bound = Storage.maxReplayRows(controls: RoomSchema.demo.controls.count)
            for r in [199, 250, 251, 300, 399, 400] {
                let moment = try read(storage, r)
                #expect(moment.states == after[r], "revision \(r)")
                #expect(moment.logRowsRead <= bound, "revision \(r)")
            }
        }
    }

    @Test("a rolled-back append leaves the next append's snapshot where the file says")
    func rolledBack() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let (commits, after) = Self.batches(count: 600)
        let cut = commits.firstIndex { $0.revision == 249 }!
        try TimelineTests.appendInChunks(storage, Array(commits[..<cut]))
        // An append whose last row is not new fails whole: nothing of it is kept.
        var bad = Array(commits[cut..<(cut + 8)])
        bad.append(commit(3, "gain", .slider(value: 0.5)))
        #expect(throws: StorageError.self) { try storage.append(bad) }
        try TimelineTests.appendInChunks(storage, Array(commits[cut...]))
        let bound = Storage.maxReplayRows(controls: RoomSchema.demo.controls.count)
        for r in stride(from: 240, through: 600, by: 3) {
            let moment = try read(storage, r)
            #expect(moment.states == after[r], "revision \(r)")
            #expect(moment.logRowsRead <= bound, "revision \(r)")
        }
    }

    @Test("a summary reads a bounded number of rows: the log's ends and one per mark")
    func boundedSummary() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try TimelineTests.appendInChunks(storage, Self.batches(count: 1_000).commits)
        let summary = try storage.timeline(room: "demo", marks: 50)
        #expect(summary.marks.count == 50)
        #expect(summary.logRowsRead <= 52)
    }
}
