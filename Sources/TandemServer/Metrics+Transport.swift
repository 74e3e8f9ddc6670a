/// The counters of the connection limits, the handshake checks and the
/// WebSocket edges (docs/operations.md, "Health and metrics").
struct TransportMetrics {
    /// Client sockets open, HTTP and WebSocket, finished handshake or not.
    var socketsOpen = 0
    /// The connection limit in force.
    var maxConnections = 0
    /// Sockets refused by the limits, by `key(_:answered:)`.
    var refused: [String: Int] = [:]
    /// Sockets with no whole request yet closed to let a newer one in.
    var displaced = 0
    /// Sockets closed by the header deadline.
    var headerTimeouts = 0
    /// WebSocket handshakes refused, by reason (`version`, `subprotocol`).
    var handshakesRefused: [String: Int] = [:]
    /// WebSocket protocol violations the server closed on, by kind.
    var protocolErrors: [String: Int] = [:]
    /// Log lines left out by the rate limit.
    var logLinesSuppressed = 0
    /// lws' own log lines, by level; accept(2) failures among them.
    var lwsLogLines: [String: Int] = [:]
    var acceptErrors = 0

    static func key(_ refusal: ConnectionLimiter.Refusal, answered: Bool) -> String {
        "{reason=\"\(refusal.rawValue)\",action=\"\(answered ? "answered" : "dropped")\"}"
    }

    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_sockets", "gauge", "Client sockets open, HTTP and WebSocket, handshake finished or not.", [("", socketsOpen)])
        out.metric("tandem_max_connections", "gauge", "The connection limit in force (--max-connections).", [("", maxConnections)])
        var refusals: [(String, Int)] = []
        for refusal in ConnectionLimiter.Refusal.allCases {
            for answered in [true, false] {
                let key = Self.key(refusal, answered: answered)
                refusals.append((key, refused[key, default: 0]))
            }
        }
        out.metric("tandem_connections_refused_total", "counter",
                   "Sockets refused by the connection limits, by reason; answered (503 or close 1013) or dropped at accept.", refusals)
        out.metric("tandem_connections_displaced_total", "counter",
                   "Sockets with no whole request yet, closed to let a newer connection in while full.", [("", displaced)])
        out.metric("tandem_header_timeouts_total", "counter",
                   "Sockets closed for sending no whole request within --header-timeout.", [("", headerTimeouts)])
        out.metric("tandem_handshakes_refused_total", "counter", "WebSocket handshakes refused, by reason.",
                   ["version", "subprotocol", "path", "header", "foreign_origin", "misdirected", "bad_host"].map { ("{reason=\"\($0)\"}", handshakesRefused[$0, default: 0]) })
        out.metric("tandem_websocket_protocol_errors_total", "counter", "WebSocket protocol violations closed on, by kind.",
                   ["unmasked", "close_payload", "close_code", "close_reason_utf8"].map { ("{kind=\"\($0)\"}", protocolErrors[$0, default: 0]) })
        out.metric("tandem_log_lines_suppressed_total", "counter", "Log lines left out by the log rate limit.", [("", logLinesSuppressed)])
        out.metric("tandem_lws_log_lines_total", "counter", "libwebsockets' own log lines, by level.",
                   ["error", "warn", "notice"].map { ("{level=\"\($0)\"}", lwsLogLines[$0, default: 0]) })
        out.metric("tandem_accept_errors_total", "counter", "accept(2) failures reported by libwebsockets (EMFILE and the like).", [("", acceptErrors)])
        return out.text
    }
}
