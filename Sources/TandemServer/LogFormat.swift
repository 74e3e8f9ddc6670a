#if canImport(Glibc)
import Glibc
#endif

/// How a log line is written (`--log-format`): `text` for people at a
/// terminal or journald, `json` for log shippers (docs/operations.md, "Logs").
///
/// Both carry the same message, made visible by `Log.escaped` first, so that a
/// control byte a client chose reads the same in either. A JSON line is one
/// object with three fields, in this order, whose names do not change:
///
///     {"time":"2026-12-07T09:30:00.123Z","level":"warn","message":"…"}
///
/// - `time`: when the line was written, UTC, ISO 8601 with milliseconds;
/// - `level`: `error`, `warn`, `info` or `debug` (the start line is `info`);
/// - `message`: the text line's message, JSON-escaped.
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
    case text, json

    /// One whole line, newline included. `label` is the level's name;
    /// `message` is already escaped (`Log.escaped`); `unixMillis` is the time.
    public func line(label: String, message: String, unixMillis: Int64) -> String {
        switch self {
        case .text:
            return "\(label) \(message)\n"
        case .json:
            return "{\"time\":\"\(isoTime(unixMillis))\",\"level\":\"\(label)\",\"message\":\(Self.quoted(message))}\n"
        }
    }

    /// `text` as a JSON string: quotes and backslashes escaped, and any
    /// control character left (`Log.escaped` has replaced them already) as `\u00XX`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Now, in Unix milliseconds (the wall clock: what a log shipper orders by).
    public static func nowMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
