/// How hard a commit is pushed to disk before `Storage.append` returns.
///
/// Both modes use SQLite's write-ahead log, so a batch is either wholly in
/// the database or not at all.
public enum Durability: String, Sendable, Hashable, CaseIterable {
    /// `synchronous=NORMAL`: a committed batch survives a killed process; after
    /// a power loss the last batches before the crash may be missing (never
    /// half-written). No fsync per transaction, only at WAL checkpoints.
    case normal
    /// `synchronous=FULL`: the WAL is fsynced at every commit, so a batch that
    /// `append` returned from survives a power loss too.
    case full

    /// The value of `PRAGMA synchronous` this mode sets (1 NORMAL, 2 FULL).
    public var synchronous: Int {
        switch self {
        case .normal: 1
        case .full: 2
        }
    }
}
