import Testing
import TandemCore
import TandemTestSupport
@testable import TandemStorage

/// The timeline: states at any revision from snapshots and the log.
@Suite("Storage timeline")
struct TimelineTests {
    /// `count` revisions of the demo room from `from`, made as the server would:
    /// mostly one control, every seventh a batch of two or three (one revision,
    /// several rows). Returns the commits and the states after each revision.
    static func session(from: Int = 1, count: Int, seed: UInt64 = 11, start: [String: ControlState] = [:])
        -> (commits: [StoredCommit], after: [Int: [String: ControlState]]) {
        var random = SplitMix64(seed: seed)
        var states = start
        var commits: [StoredCommit] = []
        var after: [Int: [String: ControlState]] = [:]
        for r in from..<(from + count) {
            let controls = r % 7 == 0 ? ["blanks", "gain", "size"].prefix(2 + r % 2) : [["gain", "color", "size", "bpm"][Int(random.next() % 4)]]
            for id in controls.sorted() {
                let state = randomState(id, &random)
                states[id] = state
                commits.append(commit(r, id, state, name: "N\(r)", time: 1_700_000_000_000 + Int64(r) * 100))
            }
            after[r] = states
        }
        return (commits, after)
    }

    static func randomState(_ id: String, _ random: inout SplitMix64) -> ControlState {
        let x = Double(random.next() % 1000) / 1000
        switch id {
        case "size": return .snap(index: Int(random.next() % 5), value: [20, 40, 60, 80, 100][Int(random.next() % 5)])
        case "blanks": return .range(RangeState(lower: Int(random.next() % 3), upper: 3 + Int(random.next() % 3)))
        case "color": return .color(RGB(red: x, green: 1 - x, blue: 0.5))
        case "bpm": return .gauge(value: x * 170, fraction: x)
        default: return .slider(value: x)
        }
    }

    /// Appends `commits` in chunks of 1 to 40 rows that never split a revision, as the server's flushes do.
    static func appendInChunks(_ storage: Storage, _ commits: [StoredCommit], seed: UInt64 = 5) throws {
        var random = SplitMix64(seed: seed)
        var k = 0
        while k < commits.count {
            var end = min(commits.count, k + 1 + Int(random.next() % 40))
            while end < commits.count, commits[end].revision == commits[end - 1].revision { end += 1 }
            try storage.append(Array(commits[k..<end]))
            k = end
        }
    }

    func found(_ storage: Storage, _ revision: Int, room: String = "demo") throws -> TimelineMoment? {
        if case let .found(moment) = try storage.moment(room: room, at: revision) { return moment }
        return nil
    }

    @Test("the states at any revision equal those after it, across snapshot boundaries and batches")
    func replayMatches() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let (commits, after) = Self.session(count: 1234)
        try Self.appendInChunks(storage, commits)
        #expect(try storage.states(room: "demo", atRevision: 0) == [:])
        for r in [1, 2, 7, 498, 499, 500, 501, 777, 999, 1000, 1001, 1233, 1234] {
            #expect(try storage.states(room: "demo", atRevision: r) == after[r], "revision \(r)")
        }
        let moment = try #require(try found(storage, 777))
        #expect(moment.time == 1_700_000_077_700)
        #expect(moment.name == "N777")
        #expect(moment.client == "c1")
        #expect(try found(storage, 0)?.time == nil)
    }

    @Test("a snapshot is written at every multiple of 500, exact even when one append crosses it mid-way")
    func snapshotsAtBoundaries() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let (commits, after) = Self.session(count: 1010)
        // Revisions 1...495 one by one-ish, then 496...1010 as one append crossing 500 and 1000.
        let split = commits.firstIndex { $0.revision == 496 }!
        try Self.appendInChunks(storage, Array(commits[..<split]))
        try storage.append(Array(commits[split...]))
        // Without the log up to each boundary, the boundary is still readable: from its snapshot.
        try storage.exec("DELETE FROM commits WHERE revision <= 1000", "test")
        #expect(try storage.states(room: "demo", atRevision: 1000) == after[1000])
        #expect(try storage.states(room: "demo", atRevision: 1005) == after[1005])
        try storage.exec("DELETE FROM snapshots WHERE revision = 1000", "test")
        #expect(try storage.states(room: "demo", atRevision: 500) == after[500])
        #expect(try storage.moment(room: "demo", at: 700) == .pruned(first: 1010))
        #expect(try storage.moment(room: "demo", at: 499) == .pruned(first: 1010))
    }

    @Test("a room whose log began before snapshots existed replays from revision 0")
    func noSnapshots() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let (commits, after) = Self.session(count: 640)
        try Self.appendInChunks(storage, commits)
        try storage.exec("DELETE FROM snapshots", "test")
        for r in [1, 499, 500, 501, 640] {
            #expect(try storage.states(room: "demo", atRevision: r) == after[r], "revision \(r)")
        }
        #expect(try storage.timeline(room: "demo").first == 0)
    }

    @Test("revisions below 0 or after the newest are unknown")
    func unknown() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        #expect(try storage.moment(room: "demo", at: 0) == .found(TimelineMoment(revision: 0, states: [:])))
        #expect(try storage.moment(room: "demo", at: 1) == .unknown(last: 0))
        try storage.append(gainCommits(count: 10))
        #expect(try storage.moment(room: "demo", at: -1) == .unknown(last: 10))
        #expect(try storage.moment(room: "demo", at: 11) == .unknown(last: 10))
        #expect(try storage.states(room: "demo", atRevision: 11) == nil)
        #expect(try storage.states(room: "demo", atRevision: 10) == ["gain": .slider(value: 0.1)])
    }

    @Test("prune keeps the revisions it leaves readable (a snapshot at the newest it removes) and drops older snapshots")
    func pruneKeepsBase() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let commits = gainCommits(count: 1200)
        try storage.append(commits)
        func gain(_ r: Int) -> [String: ControlState] { ["gain": .slider(value: Double(r % 100) / 100)] }

        #expect(try storage.prune(room: "demo", keepLast: 300, olderThanMs: nil) == 900)
        let timeline = try storage.timeline(room: "demo")
        #expect(timeline.first == 900)
        #expect(timeline.last == 1200)
        #expect(timeline.revisions == 300)
        #expect(try storage.states(room: "demo", atRevision: 900) == gain(900))
        #expect(try storage.states(room: "demo", atRevision: 950) == gain(950))
        #expect(try storage.moment(room: "demo", at: 899) == .pruned(first: 900))
        #expect(try storage.moment(room: "demo", at: 500) == .pruned(first: 900), "the snapshot at 500 went with its commits")
        #expect(try found(storage, 900)?.time == nil, "the row of revision 900 is gone")

        // By time, then everything: the last revision stays readable.
        #expect(try storage.prune(room: "demo", keepLast: nil, olderThanMs: 1_700_000_000_000 + 1000 * 1000) == 99)
        #expect(try storage.timeline(room: "demo").first == 999)
        #expect(try storage.states(room: "demo", atRevision: 1100) == gain(1100))
        #expect(try storage.prune(room: "demo", keepLast: 0, olderThanMs: nil) == 201)
        #expect(try storage.states(room: "demo", atRevision: 1200) == gain(1200))
        #expect(try storage.timeline(room: "demo") == TimelineSummary(first: 1200, last: 1200, revisions: 0, marks: []))
        #expect(try storage.moment(room: "demo", at: 1199) == .pruned(first: 1200))
    }

    @Test("a log pruned before prunes kept snapshots still shows its newest revision, from the committed states")
    func legacyPruned() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.append(gainCommits(count: 120))
        try storage.exec("DELETE FROM commits WHERE revision <= 100", "test")
        let timeline = try storage.timeline(room: "demo")
        #expect(timeline.first == 120)
        #expect(try storage.states(room: "demo", atRevision: 120) == ["gain": .slider(value: 0.2)])
        #expect(try storage.moment(room: "demo", at: 110) == .pruned(first: 120))
    }

    @Test("the summary: range, revision count (a batch is one) and at most 200 increasing marks ending at the last")
    func summary() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        #expect(try storage.timeline(room: "demo") == TimelineSummary(first: 0, last: 0, revisions: 0, marks: []))
        let (commits, _) = Self.session(count: 1500)
        try Self.appendInChunks(storage, commits)
        let timeline = try storage.timeline(room: "demo")
        #expect(timeline.first == 0)
        #expect(timeline.last == 1500)
        #expect(timeline.revisions == 1500)
        #expect(timeline.marks.count == 200)
        #expect(timeline.marks.first?.revision == 1)
        #expect(timeline.marks.last == TimelineMark(revision: 1500, time: 1_700_000_150_000))
        #expect(zip(timeline.marks, timeline.marks.dropFirst()).allSatisfy { $0.revision < $1.revision })
        let gaps = zip(timeline.marks, timeline.marks.dropFirst()).map { $1.revision - $0.revision }
        #expect(gaps.max()! - gaps.min()! <= 1, "evenly spread")

        let small = try storage.timeline(room: "demo", marks: 3)
        #expect(small.marks.map(\.revision) == [1, 750, 1500])
    }

    @Test("a few revisions: one mark each")
    func fewMarks() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        try storage.append(gainCommits(count: 5))
        #expect(try storage.timeline(room: "demo").marks.map(\.revision) == [1, 2, 3, 4, 5])
    }

    @Test("states fit the current schema: added controls initial, removed ones left out, unfit ones initial")
    func fitting() throws {
        let moment = TimelineMoment(revision: 3, states: [
            "gain": .slider(value: 0.25), "gone": .slider(value: 1), "size": .slider(value: 40), "color": .color(RGB(red: 2, green: 0, blue: 0)),
        ])
        let controls = moment.controls(in: .demo)
        #expect(controls.map(\.id) == ["size", "blanks", "color", "gain", "bpm"])
        #expect(controls.map(\.state) == [
            demoControl("size").initial, demoControl("blanks").initial, demoControl("color").initial,
            .slider(value: 0.25), demoControl("bpm").initial,
        ])
    }

    @Test("a page of history never cuts a batch's rows in half")
    func historyWholeRevisions() throws {
        let storage = try Storage(path: ":memory:")
        try storage.saveRoom(.demo)
        let batch = [commit(3, "blanks", .range(RangeState(lower: 1, upper: 3))), commit(3, "gain", .slider(value: 0.2)),
                     commit(3, "size", .snap(index: 0, value: 20))]
        try storage.append(gainCommits(count: 2) + batch + gainCommits(from: 4, count: 2))
        let all = try storage.history(room: "demo", since: 0, limit: 100)
        #expect(all.map(\.revision) == [1, 2, 3, 3, 3, 4, 5])
        #expect(try storage.history(room: "demo", since: 0, limit: 3).map(\.revision) == [1, 2])
        #expect(try storage.history(room: "demo", since: 0, limit: 5).map(\.revision) == [1, 2, 3, 3, 3])
        #expect(try storage.history(room: "demo", since: 2, limit: 1).map(\.revision) == [3, 3, 3], "one revision larger than the limit comes whole")
        #expect(try storage.history(room: "demo", since: 3, limit: 1).map(\.revision) == [4])
    }
}
