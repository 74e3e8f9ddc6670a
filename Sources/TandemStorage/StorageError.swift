/// Why storage failed: the database file, what was being done, and SQLite's
/// own words (or ours, for a refusal such as a revision that is not new).
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file (or `:memory:`).
    public var path: String
    /// What was being done: "open", "append 3 commits", "load room 'demo'", …
    public var operation: String
    /// SQLite's extended result code; `nil` when storage itself refused.
    public var code: Int32?
    /// SQLite's error text, or what storage found wrong.
    public var reason: String

    public init(path: String, operation: String, code: Int32? = nil, reason: String) {
        self.path = path
        self.operation = operation
        self.code = code
        self.reason = reason
    }

    /// `storage /var/lib/tandem/tandem.db: append 1 commit: UNIQUE constraint failed: commits.room, commits.revision (SQLite 1555)`
    public var description: String {
        let suffix = code.map { " (SQLite \($0))" } ?? ""
        return "storage \(path): \(operation): \(reason)\(suffix)"
    }
}
