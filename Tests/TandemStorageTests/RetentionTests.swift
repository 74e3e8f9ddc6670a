import Testing
import TandemCore
@testable import TandemStorage

@Suite("Storage retention passes")
struct RetentionTests {
    @Test("a pass keeps the newest N revisions, deleting at most maxRows rows, and the rest stay readable")
    func boundedCount() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db")
            try storage.saveRoom(.demo)
            try storage.append(gainCommits(from: 1, count: 1000))
            var passes: [Storage.PruneStep] = []
            repeat {
                passes.append(try storage.pruneStep(room: "demo", keepRevisions: 100, olderThanMs: nil, maxRows: 300))
            } while passes.last!.more
            #expect(passes.map(\.deleted) == [300, 300, 300])
            #expect(try storage.history(room: "demo", since: 0, limit: 10_000).map(\.revision) == Array(901...1000))
            #expect(try storage.pruneStep(room: "demo", keepRevisions: 100, olderThanMs: nil, maxRows: 300) == .init(deleted: 0, more: false))
            // What is left reads; what went is pruned.
            #expect(try storage.states(room: "demo", atRevision: 950)?["gain"] == demoState("gain", nil, 0.5))
            if case .pruned = try storage.moment(room: "demo", at: 500) {} else { Issue.record("revision 500 should read as pruned") }
        }
    }

    @Test("keeping N revisions keeps exactly N when the first kept and the last deleted share a millisecond")
    func countWithEqualTimes() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db")
            try storage.saveRoom(.demo)
            // Every commit in the same millisecond, as a fast writer makes them.
            try storage.append((1...20).map { r in commit(r, "gain", demoState("gain", nil, Double(r) / 100)) })
            _ = try storage.pruneStep(room: "demo", keepRevisions: 5, olderThanMs: nil, maxRows: 10_000)
            #expect(try storage.history(room: "demo", since: 0, limit: 100).map(\.revision) == Array(16...20))
            // The base snapshot keeps the revision just before the first kept readable.
            #expect(try storage.states(room: "demo", atRevision: 15)?["gain"] == demoState("gain", nil, 0.15))
            #expect(try storage.states(room: "demo", atRevision: 16)?["gain"] == demoState("gain", nil, 0.16))
            if case .pruned = try storage.moment(room: "demo", at: 14) {} else { Issue.record("revision 14 should read as pruned") }
        }
    }

    @Test("an age keeps the revisions logged since, in bounded passes; 0 revisions kept deletes all")
    func ageAndAll() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/tandem.db")
            try storage.saveRoom(.demo)
            try storage.append(gainCommits(from: 1, count: 100)) // revision r at 1_700_000_000_000 + r s
            let since: Int64 = 1_700_000_000_000 + 61 * 1000
            let first = try storage.pruneStep(room: "demo", keepRevisions: nil, olderThanMs: since, maxRows: 40)
            #expect(first == .init(deleted: 40, more: true))
            let second = try storage.pruneStep(room: "demo", keepRevisions: nil, olderThanMs: since, maxRows: 40)
            #expect(second == .init(deleted: 20, more: false))
            #expect(try storage.history(room: "demo", since: 0, limit: 10_000).first?.revision == 61)
            #expect(try storage.pruneStep(room: "demo", keepRevisions: nil, olderThanMs: nil, maxRows: 40).deleted == 0)
            _ = try storage.pruneStep(room: "demo", keepRevisions: 0, olderThanMs: nil, maxRows: 10_000)
            #expect(try storage.history(room: "demo", since: 0, limit: 10_000).isEmpty)
            #expect(try storage.loadRoom("demo")?.revision == 100) // committed states are not the log
        }
    }
}
