import TandemWire

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
    /// `message` is already escaped (`Log.escaped`); `unixMillis` is the time
    /// (`WallClock.milliseconds()`: the wall clock, what a log shipper orders by).
    public func line(label: String, message: String, unixMillis: Int64) -> String {
        switch self {
        case .text:
            return "\(label) \(message)\n"
        case .json:
            var out = JSONWriter()
            out.append(raw: "{\"time\":")
            out.append(string: isoTime(unixMillis))
            out.append(raw: ",\"level\":")
            out.append(string: label)
            out.append(raw: ",\"message\":")
            out.append(string: message)
            out.append(raw: "}\n")
            return String(decoding: out.bytes, as: UTF8.self)
        }
    }
}
