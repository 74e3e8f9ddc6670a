/// The counters of the timeline (docs/timeline.md, "Cost"): how often a past
/// state or a summary was read, and how much of the log those reads took.
struct TimelineMetrics {
    enum Read: String, CaseIterable {
        /// A room at a revision (`GET …/timeline/{rev}`, a restore).
        case moment
        /// `GET …/timeline`.
        case summary
    }

    /// Reads done, by kind (a restore refused before its read counts none).
    var reads: [Read: Int] = [:]
    /// Log rows (SQLite) or entries (Redis) those reads took, by kind.
    var logRows: [Read: Int] = [:]

    /// Timeline snapshots this node wrote to Redis as a room's owner.
    var snapshots = 0

    mutating func note(_ read: Read, rows: Int) {
        reads[read, default: 0] += 1
        logRows[read, default: 0] += rows
    }

    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_timeline_reads_total", "counter", "Timeline reads done, by kind (moment: a room at a revision, for a GET or a restore).",
                   Read.allCases.map { ("{kind=\"\($0.rawValue)\"}", reads[$0, default: 0]) })
        out.metric("tandem_timeline_log_rows_read_total", "counter", "Commit-log rows (Redis: entries) those reads took, by kind.",
                   Read.allCases.map { ("{kind=\"\($0.rawValue)\"}", logRows[$0, default: 0]) })
        out.metric("tandem_timeline_snapshots_total", "counter", "Timeline snapshots this node wrote to Redis as a room's owner (cluster mode).",
                   [("", snapshots)])
        return out.text
    }
}
