#if canImport(Glibc)
import Glibc
#endif
import TandemStorage

/// One line per event on standard error: `LEVEL message`, or a JSON object
/// with `--log-format json` (LogFormat.swift). Lines are written whole with
/// one `write`, so they never interleave.
///
/// Every line goes through `Log.escaped`: text a client chose (a URL path, a
/// header, a name, a close reason, a token's claims) reaches the log inside
/// messages, and a control byte in it (ESC starting a terminal escape, a CR or
/// LF forging a line of its own, a bidi override reordering what is shown)
/// must reach the operator's terminal or log pipeline as visible text.
public struct Log: Sendable {
    /// The most verbose level written.
    public var level: LogLevel
    /// Text or JSON lines.
    public var format: LogFormat

    public init(level: LogLevel, format: LogFormat = .text) {
        self.level = level
        self.format = format
    }

    /// A line written whatever the level: the start line people and scripts wait for.
    public func always(_ message: @autoclosure () -> String) { write(.error, message, label: "info") }
    public func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public func warn(_ message: @autoclosure () -> String) { write(.warn, message) }
    public func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    private func write(_ at: LogLevel, _ message: () -> String, label: String? = nil) {
        guard at <= level else { return }
        var line = format.line(label: label ?? at.name, message: Self.escaped(message()), unixMillis: WallClock.milliseconds())
        line.withUTF8 { bytes in
            _ = Glibc.write(2, bytes.baseAddress, bytes.count)
        }
    }

    /// `text` with every control character written as a visible escape:
    /// C0 (U+0000–U+001F, tab and line breaks included), DEL and C1
    /// (U+007F–U+009F) as `\x1b`, `\x7f`, `\u{85}`; the bidi embeddings,
    /// overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the line and
    /// paragraph separators (U+2028, U+2029) as `\u{202e}` and the like.
    /// Everything else, backslashes included, is kept as it is.
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F {
                out += "\\x" + (v < 0x10 ? "0" : "") + String(v, radix: 16)
            } else if (0x80...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
                        || v == 0x2028 || v == 0x2029 {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
