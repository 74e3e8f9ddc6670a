import TandemStorage

/// Where the timeline is read from: the SQLite file on a single node (its
/// snapshots make any revision cheap), Redis' commit log in a cluster
/// (`RedisRoomStore+Timeline.swift`).
protocol TimelineSource {
    func readMoment(room: String, at revision: Int) throws -> TimelineRead
    func readTimeline(room: String, marks: Int) throws -> TimelineSummary
}

extension Storage: TimelineSource {
    func readMoment(room: String, at revision: Int) throws -> TimelineRead {
        try moment(room: room, at: revision)
    }

    func readTimeline(room: String, marks: Int) throws -> TimelineSummary {
        try timeline(room: room, marks: marks)
    }
}
