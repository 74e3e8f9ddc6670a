import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// Whether the file still takes writes, and what a failure means for the
/// server (docs/storage.md, "When the disk fills or fails").
extension Storage {
    /// A write about the size of a turn's batch (one `meta` row of
    /// `probeBytes`, one transaction): it succeeds when the file takes writes
    /// again after a failure (space freed, the device back). A smaller one
    /// could fit in a page the file already has while a batch does not, and
    /// tell of a recovery that is not one. Throws as `append` does.
    public func probe() throws(StorageError) {
        let operation = "probe write"
        let stamp = String(WallClock.milliseconds()) + String(repeating: " ", count: Self.probeBytes)
        try transaction(operation) { () throws(StorageError) in
            try run(.probe, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, stamp))
                _ = try step(s, operation)
            }
        }
    }

    /// The size of the probe's row: four pages, as much as a few commits' batch writes.
    public static let probeBytes = 16 * 1024

    /// Why the open file is no longer the file at `path`, or `nil`: it was
    /// deleted (writes would go to a file nobody can open again) or replaced
    /// by another. Always `nil` for `:memory:`. One `stat` of the path.
    public func fileProblem() -> String? {
        guard let opened else { return nil }
        guard let now = FileIdentity(path) else { return "the database file \(path) was deleted while the server had it open" }
        return now == opened ? nil : "the database file \(path) was replaced by another file while the server had it open"
    }
}

/// A file's device and inode.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    /// The identity of the file at `path`, or `nil` when there is none.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// What a storage failure is, for what the server does about it.
public enum StorageFailure: Sendable, Hashable {
    /// The file system is full (`SQLITE_FULL`): refuse writes until one succeeds.
    case diskFull
    /// The device failed a read, write or sync (`SQLITE_IOERR`, …): the same.
    case ioError
    /// Another process held the file's lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    case busy
    /// The file or its folder cannot be written (`SQLITE_READONLY`, `SQLITE_CANTOPEN`, `SQLITE_PERM`, …).
    case unwritable
    /// The file is damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`): no write can be trusted to it.
    case corrupt
    /// Storage itself refused the batch (`code == nil`: a revision that is not new): a bug, not the disk.
    case refused
    /// Any other SQLite failure (out of memory, …).
    case other
}

extension StorageError {
    /// What kind of failure this is.
    public var failure: StorageFailure {
        guard let code else { return .refused }
        switch code & 0xff {
        case SQLITE_FULL: return .diskFull
        case SQLITE_IOERR: return .ioError
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: return .unwritable
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        default: return .other
        }
    }

    /// The cause in a few words, as a reject or a 503 names it: "disk full", "I/O error", …
    public var cause: String {
        switch failure {
        case .diskFull: "disk full"
        case .ioError: "I/O error"
        case .busy: "database busy"
        case .unwritable: "database not writable"
        case .corrupt: "database corrupt"
        case .refused: "storage refused the write"
        case .other: "storage error"
        }
    }
}
