import TandemCore
import TandemStorage

/// The timeline in a cluster, read from Redis' commit log
/// (`tandem:{ROOM}:log`). Redis keeps no snapshots: a read goes through the
/// log up to the revision asked for, in pages of 10,000 entries — fine for
/// the logs `--history-keep`-sized rooms have; a room with millions of
/// commits pays for them (docs/scale-out.md, "The timeline and history").
extension ClusterRooms: TimelineSource {
    func readMoment(room: String, at revision: Int) throws -> TimelineRead {
        let last = try lastLogged(room)
        guard revision >= 0, revision <= last else { return .unknown(last: last) }
        var states: [String: ControlState] = [:]
        var moment = TimelineMoment(revision: revision, states: [:])
        try scan(room, upTo: revision) { commit in
            states[commit.control] = commit.state
            if commit.revision == revision {
                moment.time = commit.time
                moment.name = commit.name
                moment.client = commit.client
            }
        }
        moment.states = states
        return .found(moment)
    }

    func readTimeline(room: String, marks: Int) throws -> TimelineSummary {
        var revisions: [(revision: Int, time: Int64)] = []
        try scan(room, upTo: Int.max) { commit in
            if revisions.last?.revision != commit.revision { revisions.append((commit.revision, commit.time)) }
        }
        guard let lastRevision = revisions.last?.revision else {
            return TimelineSummary(first: 0, last: 0, revisions: 0, marks: [])
        }
        var found: [TimelineMark] = []
        let count = max(0, marks)
        var index = 0
        for k in 0..<count {
            let target = count == 1 ? lastRevision : Int((Double(lastRevision) * Double(k) / Double(count - 1)).rounded())
            if let mark = found.last, target <= mark.revision { continue }
            while index < revisions.count, revisions[index].revision < target { index += 1 }
            guard index < revisions.count else { break }
            found.append(TimelineMark(revision: revisions[index].revision, time: revisions[index].time))
        }
        return TimelineSummary(first: 0, last: lastRevision, revisions: revisions.count, marks: found)
    }

    /// Every commit of the room's log up to `revision`, oldest first.
    private func scan(_ room: String, upTo revision: Int, _ body: (StoredCommit) -> Void) throws {
        var since = 0
        while true {
            let page = try history(room: room, since: since, limit: 10_000)
            for commit in page where commit.revision <= revision { body(commit) }
            guard let lastOfPage = page.last?.revision, lastOfPage < revision, page.count >= 10_000 else { return }
            since = lastOfPage
        }
    }
}
