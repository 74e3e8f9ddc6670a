import TandemCore
import TandemStorage

/// Series in local rooms: fed with the commits the file took (or, in
/// memory, with each commit as it is made) and written once a tick.
extension LocalRooms {
    /// Records `commits` (written to the file this turn) into their series.
    func recordSeries(_ commits: [StoredCommit]) {
        for commit in commits {
            guard let host = rooms[commit.room], let index = host.room.schema.index(of: commit.control) else { continue }
            series.record(commit.state, of: host.room.schema.controls[index], in: commit.room, at: commit.time)
        }
    }

    /// Writes the buckets that changed; a failure is logged (at most once a
    /// minute) and they are tried again at the next tick.
    func flushSeries() {
        do {
            try series.flush()
        } catch {
            if series.writeFailures == 1 || series.writeFailures % 240 == 0 {
                log.error("series: \(series.unwrittenCount) bucket(s) could not be written, will retry: \(error)")
            }
        }
    }
}
