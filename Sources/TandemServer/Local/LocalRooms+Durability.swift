#if canImport(Glibc)
import Glibc
#endif
import TandemCore
import TandemOSC
import TandemStorage

/// Whether the SQLite file takes writes (a single node with `--data FILE`):
/// the failure while there is one, and the counts the metrics show.
final class StorageWatch {
    /// The failure that made storage unavailable, while it is.
    private(set) var failure: StorageError?
    /// Since when storage has been unavailable.
    private(set) var since: Moment?
    /// Writes that failed since storage became unavailable.
    private(set) var failedWrites = 0
    /// Set when the open file is no longer the file at its path (deleted or replaced):
    /// no write is tried any more, until a restart.
    var fileProblem: String?
    /// The cause of the last `writeCommits` that wrote nothing, until the next call.
    var lastTurnRefused: String?
    /// When the file was last checked (its path) or probed (a write).
    var lastCheck = Moment.zero
    /// For the metrics.
    private(set) var failuresTotal = 0
    private(set) var recoveriesTotal = 0
    private(set) var rejectedTotal = 0

    /// Seconds between two checks of the file's path, and between two probe
    /// writes while storage is unavailable and no commit tries for it.
    static let checkInterval = 1.0

    var ok: Bool { failure == nil && fileProblem == nil }

    /// A write failed; whether storage was available until now.
    func failed(_ error: StorageError, at now: Moment) -> Bool {
        failuresTotal += 1
        failedWrites += 1
        let changed = failure == nil
        if changed { since = now }
        failure = error
        return changed
    }

    /// A write succeeded: the failure it ends, with how long and how many writes it lasted.
    func succeeded(at now: Moment) -> (failure: StorageError, seconds: Double, writes: Int)? {
        guard let failure, let since else { return nil }
        defer {
            self.failure = nil
            self.since = nil
            failedWrites = 0
        }
        recoveriesTotal += 1
        return (failure, now.seconds(since: since), failedWrites)
    }

    func rejected(_ count: Int) { rejectedTotal += count }

    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_storage_ok", "gauge", "1 while the SQLite file takes writes, 0 while commits are refused (disk full, I/O error, file deleted).",
                   [("", ok ? 1 : 0)])
        out.metric("tandem_storage_failures_total", "counter", "Writes to the SQLite file that failed (nothing of them was written).",
                   [("", failuresTotal)])
        out.metric("tandem_storage_recoveries_total", "counter", "Times the SQLite file took writes again after failing.",
                   [("", recoveriesTotal)])
        out.metric("tandem_storage_refused_total", "counter", "Messages and HTTP writes refused because their commit could not be written.",
                   [("", rejectedTotal)])
        return out.text
    }
}

/// Durability on a single node (docs/storage.md, "When the disk fills or
/// fails"): a turn's commits are written in one transaction before anyone
/// is told of them; when that write fails, each room goes back to what the
/// file holds and every message whose commit was not written is refused
/// (`unavailable`), so that an `ack` never stands for an unwritten commit.
/// Reads, drags and previews go on; every later commit tries the file
/// again, and so does a probe write every second, so storage comes back by
/// itself when space (or the device) does.
extension LocalRooms {
    /// The reject's and the 503's sentence for a write that storage could not take.
    static func unstoredMessage(_ cause: String) -> String {
        "the server could not store this change (\(cause)); nothing changed, try again"
    }

    /// Writes this turn's commits in one transaction, then lets the frames that
    /// carry them go out: nobody is told of a commit a crash could take back.
    /// When the write fails, nothing of it is in the file: the rooms are put
    /// back (`rollBackTurn`) and their frames go out with the rejects.
    func writeTurn() {
        storageWatch.lastTurnRefused = nil
        guard !unwritten.isEmpty, let storage else { return }
        let now = MonotonicClock.now()
        if let problem = storageWatch.fileProblem {
            // Writes would go to a file nobody can open again: refused, like a failed write.
            rollBackTurn(cause: "database file deleted", detail: problem, at: now)
            return
        }
        do {
            try storage.append(unwritten)
        } catch {
            switch error.failure {
            case .refused, .corrupt:
                // Refused: the rooms and the file disagree (a bug). Corrupt: no
                // write can be trusted to the file. Releasing the frames now would
                // tell clients of commits a restart forgets; stop as a crash would:
                // nobody has seen these commits, and everything acknowledged is in the file.
                log.error("\(error.description): cannot write \(unwritten.count) commit(s); stopping so that no unwritten commit is ever acknowledged\(error.failure == .corrupt ? " (the file is damaged: check it with sqlite3 PRAGMA integrity_check, restore a backup)" : "")")
                exit(70) // EX_SOFTWARE
            case .diskFull, .ioError, .busy, .unwritable, .other:
                storageFailed(error, at: now)
                rollBackTurn(cause: error.cause, detail: error.description, at: now)
                return
            }
        }
        storageSucceeded(at: now)
        recordSeries(unwritten) // what the file took, and only that, goes into the series
        unwritten.removeAll(keepingCapacity: true)
        for id in withheld {
            guard let host = rooms[id].map(local) else { continue }
            host.room.markDurable()
            release(host, at: now)
        }
        withheld.removeAll(keepingCapacity: true)
        flushOSC() // the commits OSC waited for are written
    }

    /// The turn's commits were not written: every withheld room goes back to
    /// its durable state, each message that committed gets its reject ahead
    /// of its ack, and the frames go out again (the durable state included).
    private func rollBackTurn(cause: String, detail: String, at now: Moment) {
        let count = unwritten.count
        let message = Self.unstoredMessage(cause)
        var refused = 0
        var restored: [String: Set<Int>] = [:]
        for commit in unwritten {
            guard let index = rooms[commit.room]?.room.schema.index(of: commit.control) else { continue }
            restored[commit.room, default: []].insert(index)
        }
        unwritten.removeAll(keepingCapacity: true)
        storageWatch.lastTurnRefused = cause
        for id in withheld.sorted() {
            guard let host = rooms[id].map(local) else { continue }
            let effects = host.room.rollBack(code: .unavailable, message: message)
            refused += effects.rejects.count
            host.room.releaseFrames()
            dispatch(effects, in: host, arrival: now)
            release(host, at: now)
        }
        withheld.removeAll(keepingCapacity: true)
        storageWatch.rejected(refused)
        // OSC never got the unwritten commits; what it gets instead is each
        // rolled-back control's durable state (a drag's last preview may have gone out).
        if let osc, osc.sends {
            osc.unsent.removeAll()
            for (id, controls) in restored.sorted(by: { $0.key < $1.key }) {
                guard let host = rooms[id] else { continue }
                for c in controls.sorted() {
                    osc.unsent.append((id, c, OSCOut.messages(room: id, control: host.room.schema.controls[c], state: host.room.committed[c])))
                }
            }
        }
        throttled("storage-refused", .warn, "\(detail): \(count) commit(s) not written, rooms put back to what the file holds; \(refused) message(s) refused with unavailable")
    }

    /// Lets `host`'s frames go out: those whose writable callback found the
    /// room withholding at once, everyone else by the fan-out rule.
    private func release(_ host: LocalRoomHost, at now: Moment) {
        host.room.releaseFrames()
        for connection in host.waitingRelease where connection.closing == nil && host.members[connection.client] === connection {
            arm(connection, at: now)
        }
        host.waitingRelease.removeAll()
        requestFlush(host, at: now)
    }

    /// A write to the file failed with `error`: counted, and logged when storage was available until now.
    func storageFailed(_ error: StorageError, at now: Moment) {
        guard storageWatch.failed(error, at: now) else { return }
        throttled("storage-state", .error, "storage unavailable: \(error.description): commits are refused (reject unavailable, HTTP 503) until a write succeeds; reads and drags go on; /healthz 503")
    }

    /// A write to the file succeeded: logged when it ends a failure.
    func storageSucceeded(at now: Moment) {
        guard let ended = storageWatch.succeeded(at: now) else { return }
        throttled("storage-state", .warn, "storage available again: writes succeed after \(ended.writes) failed write(s) over \(Double(Int(ended.seconds * 10)) / 10) s (\(ended.failure.cause)); commits are taken again; /healthz 200")
    }

    /// A storage call of an HTTP write or a preset change failed: counted
    /// like a failed turn when it is the disk's (or the device's) doing.
    func noteStorageError(_ error: StorageError) {
        switch error.failure {
        case .refused, .corrupt: log.error(error.description)
        default: storageFailed(error, at: MonotonicClock.now())
        }
    }

    /// The 503 of an HTTP write whose storage call failed (or 500 for storage refusing it).
    func storageAnswer(_ error: StorageError) -> HTTPAnswer {
        noteStorageError(error)
        guard error.failure != .refused else { return .json(500, problem("storage", "the change could not be saved: \(error.reason)")) }
        storageWatch.rejected(1)
        return .json(503, problem("unavailable", Self.unstoredMessage(error.cause)))
    }

    /// The 503 of an HTTP write (a `PUT`, a recall, a restore) whose commits
    /// `writeCommits` could not write, right after it; `nil` when they were written.
    func unstoredAnswer() -> HTTPAnswer? {
        guard let cause = storageWatch.lastTurnRefused else { return nil }
        storageWatch.rejected(1)
        return .json(503, problem("unavailable", Self.unstoredMessage(cause)))
    }

    /// From housekeeping: once a second, whether the file is still the one
    /// opened, and while storage is unavailable a probe write, so that it
    /// comes back (with /healthz) when space does even if nobody commits.
    func storageTick(at now: Moment) {
        guard let storage, now.seconds(since: storageWatch.lastCheck) >= StorageWatch.checkInterval else { return }
        storageWatch.lastCheck = now
        if storageWatch.fileProblem == nil, let problem = storage.fileProblem() {
            storageWatch.fileProblem = problem
            log.error("storage unavailable: \(problem): commits are refused (reject unavailable, HTTP 503) until a restart; the data written so far is still in the open file (/proc/\(getpid())/fd); /healthz 503")
        }
        guard storageWatch.failure != nil, storageWatch.fileProblem == nil, unwritten.isEmpty else { return }
        do {
            try storage.probe()
            storageSucceeded(at: now)
        } catch {
            noteStorageError(error)
        }
    }

    /// `/healthz`'s part: why storage is unavailable, or `nil`.
    func storageHealthProblem() -> String? {
        if let problem = storageWatch.fileProblem { return "storage unavailable: \(problem)" }
        guard let failure = storageWatch.failure else { return nil }
        let seconds = storageWatch.since.map { Int(MonotonicClock.now().seconds(since: $0)) } ?? 0
        return "storage unavailable: \(failure.cause) for \(seconds) s, \(storageWatch.failedWrites) failed write(s): \(failure.description)"
    }
}
