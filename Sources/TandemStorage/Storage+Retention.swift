import CSQLite

/// History retention in bounded passes (docs/storage.md, "Retention"): each
/// pass over a room reads a few index entries when nothing is due, and
/// deletes at most about `maxRows` log rows when something is, so a server
/// started with a retention on a file that kept everything catches up over
/// several passes instead of holding its event loop for one long delete.
/// What is left stays readable on the timeline (a snapshot at the newest
/// revision removed, `keepTimelineBase`); a revision removed reads as `pruned`.
extension Storage {
    /// What one pass over a room did.
    public struct PruneStep: Sendable, Hashable {
        /// Log rows deleted.
        public var deleted: Int
        /// Whether the room has more to delete than this pass took (run another soon).
        public var more: Bool
    }

    /// One bounded pass of retention over `room`'s log: keeps its newest
    /// `keepRevisions` revisions (a batch's rows are one revision) and, with
    /// `olderThanMs`, only revisions logged at or after that Unix time; a
    /// revision goes if either rule says so, at most the oldest `maxRows` rows
    /// (whole revisions) in this pass. With neither rule nothing goes.
    public func pruneStep(room: String, keepRevisions: Int?, olderThanMs: Int64?, maxRows: Int) throws(StorageError) -> PruneStep {
        guard keepRevisions != nil || olderThanMs != nil else { return PruneStep(deleted: 0, more: false) }
        let operation = "prune room '\(room)'"
        return try transaction(operation) { () throws(StorageError) -> PruneStep in
            guard let oldest = try seek(.oldestLogged, room, operation), let newest = try seek(.newestLogged, room, operation) else {
                return PruneStep(deleted: 0, more: false)
            }
            // The first revision kept (newest + 1: none), before the bound on work.
            var cut = oldest
            if let n = keepRevisions { cut = max(cut, newest - max(n, 0) + 1) }
            // The row `maxRows` from the oldest bounds this pass (and the age scan below).
            let limit = try run(.commitAtOffset, operation) { s throws(StorageError) -> (revision: Int, time: Int64)? in
                try self.bound(operation, s.bind(1, room), s.bind(2, max(maxRows, 1)))
                return try step(s, operation) ? (s.int(0), s.int64(1)) : nil
            }
            var more = false
            if let t = olderThanMs, try time(of: oldest, room, operation).map({ $0 < t }) ?? false {
                if let limit, limit.time < t {
                    cut = max(cut, limit.revision)
                    more = true // older rows past the bound: the next pass goes on
                } else {
                    let young = try run(.firstAtOrAfterTime, operation) { s throws(StorageError) -> Int? in
                        try self.bound(operation, s.bind(1, room), s.bind(2, limit?.revision ?? newest), s.bind(3, t))
                        return try step(s, operation) ? s.int(0) : nil
                    }
                    cut = max(cut, young ?? newest + 1)
                }
            }
            guard cut > oldest else { return PruneStep(deleted: 0, more: false) }
            if let limit, limit.revision < cut {
                cut = max(limit.revision, oldest + 1)
                more = true
            }
            // The snapshot that keeps the rest readable, then the rows below the
            // same survivor it was written for (equal times may keep a few more).
            let keepLast: Int? = cut > newest ? 0 : nil
            let since: Int64? = cut > newest ? nil : try time(of: cut, room, operation)
            // The first revision kept is `cut`, never one before it with the same time
            // (two commits in one millisecond would otherwise keep one revision too many).
            try keepTimelineBase(room: room, keepLast: keepLast, olderThanMs: since, from: cut, operation)
            let survivor = try run(.pruneSurvivor, operation) { s throws(StorageError) -> Int? in
                try self.bound(operation, s.bind(1, room), s.bind(2, keepLast ?? -1), s.bind(3, since ?? Int64.min), s.bind(4, cut))
                guard try step(s, operation), sqlite3_column_type(s.handle, 0) != SQLITE_NULL else { return nil }
                return s.int(0)
            }
            let deleted = try run(.pruneBelow, operation) { s throws(StorageError) -> Int in
                try self.bound(operation, s.bind(1, room), s.bind(2, survivor ?? newest + 1))
                _ = try step(s, operation)
                return changes()
            }
            return PruneStep(deleted: deleted, more: more && deleted > 0)
        }
    }

    private func seek(_ sql: SQL, _ room: String, _ operation: String) throws(StorageError) -> Int? {
        try run(sql, operation) { s throws(StorageError) -> Int? in
            try bound(operation, s.bind(1, room))
            return try step(s, operation) ? s.int(0) : nil
        }
    }

    /// The time `revision` was logged at, if it is.
    private func time(of revision: Int, _ room: String, _ operation: String) throws(StorageError) -> Int64? {
        try run(.revisionRow, operation) { s throws(StorageError) -> Int64? in
            try bound(operation, s.bind(1, room), s.bind(2, revision))
            return try step(s, operation) ? s.int64(0) : nil
        }
    }
}
