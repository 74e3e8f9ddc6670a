import TandemCore
import TandemStorage

/// Where history retention stands between passes (`--history-keep`, docs/storage.md, "Retention").
struct RetentionPass {
    /// When the last pass ran.
    var last = Moment.zero
    /// Whether it stopped at its bound on work with rows still due: the next runs at the next tick.
    var behind = false
    /// The room (in `rooms.order`) the next pass starts at, so that one busy room does not starve the rest.
    var cursor = 0
    /// Log rows deleted since start, and passes that ran.
    var pruned = 0
    var passes = 0
    /// The storage's health, whose metrics follow retention's (LocalRooms+Durability.swift).
    var watch: StorageWatch?

    /// Seconds between passes when nothing is behind.
    static let interval = 10.0
    /// Log rows one pass deletes at most, over every room (a pass also
    /// writes at most one snapshot per room it prunes).
    static let maxRowsPerPass = 10_000

    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_history_pruned_total", "counter", "Commit log rows removed by history retention (--history-keep).", [("", pruned)])
        out.metric("tandem_history_prune_passes_total", "counter", "History retention passes run.", [("", passes)])
        return out.text + (watch?.exposition() ?? "")
    }
}

extension LocalRooms {
    /// From housekeeping: a pass every `RetentionPass.interval`, or at once while one is behind.
    func retentionTick(at now: Moment) {
        guard retention.behind || now.seconds(since: retention.last) >= RetentionPass.interval else { return }
        pruneHistory(at: now)
    }

    /// One bounded pass of `--history-keep` over the rooms' commit logs
    /// (standalone; Redis' log is kept whole); errors are logged.
    func pruneHistory(at now: Moment) {
        retention.last = now
        retention.behind = false
        guard let storage, let keep = config.historyKeep, !rooms.order.isEmpty else { return }
        retention.passes += 1
        var budget = RetentionPass.maxRowsPerPass
        var removed = 0
        let count = rooms.order.count
        let start = retention.cursor % count
        for k in 0..<count where budget > 0 {
            let id = rooms.order[(start + k) % count]
            do {
                let step: Storage.PruneStep
                switch keep {
                case let .count(n):
                    step = try storage.pruneStep(room: id, keepRevisions: n, olderThanMs: nil, maxRows: budget)
                case let .age(seconds):
                    step = try storage.pruneStep(room: id, keepRevisions: nil, olderThanMs: WallClock.milliseconds() - seconds * 1000,
                                                 maxRows: budget)
                }
                removed += step.deleted
                budget -= step.deleted
                if step.more || budget <= 0 {
                    retention.behind = true
                    retention.cursor = (start + k) % count // this room still has rows due: the next pass starts with it
                    break
                }
            } catch {
                // Nothing of this room's pass was deleted; a full or failing disk
                // fails the others alike: the next pass (10 s) tries again.
                noteStorageError(error)
                throttled("history-retention-failed", .warn, "history retention: \(error.description) (tried again at the next pass)")
                break
            }
        }
        if !retention.behind { retention.cursor = 0 }
        retention.pruned += removed
        if removed > 0 { throttled("history-retention", .info, "history retention: removed \(removed) commit row(s)\(retention.behind ? ", more next tick" : "")") }
    }
}
