import TandemStorage

/// Where the timeline is read from: the SQLite file on a single node (its
/// snapshots make any revision cheap), Redis' commit log in a cluster
/// (`Replicated/RedisRoomStore+Timeline.swift`).
protocol TimelineSource {
    func readMoment(room: String, at revision: Int) throws -> TimelineRead
    func readTimeline(room: String, marks: Int) throws -> TimelineSummary
    /// The commit log from `since` (exclusive), oldest first, at most `limit` entries.
    func history(room: String, since: Int, limit: Int) throws -> [StoredCommit]
}

extension Storage: TimelineSource {
    func readMoment(room: String, at revision: Int) throws -> TimelineRead {
        try moment(room: room, at: revision)
    }

    func readTimeline(room: String, marks: Int) throws -> TimelineSummary {
        try timeline(room: room, marks: marks)
    }
}
