#if canImport(Glibc)
import Glibc
#endif

/// One line per event on standard error: `LEVEL message`. Lines are written
/// whole with one `write`, so they never interleave.
public struct Log: Sendable {
    /// The most verbose level written.
    public var level: LogLevel

    public init(level: LogLevel) {
        self.level = level
    }

    /// A line written whatever the level: the start line people and scripts wait for.
    public func always(_ message: @autoclosure () -> String) { write(.error, message, label: "info") }
    public func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public func warn(_ message: @autoclosure () -> String) { write(.warn, message) }
    public func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    private func write(_ at: LogLevel, _ message: () -> String, label: String? = nil) {
        guard at <= level else { return }
        var line = "\(label ?? at.name) \(message())\n"
        line.withUTF8 { bytes in
            _ = Glibc.write(2, bytes.baseAddress, bytes.count)
        }
    }
}
