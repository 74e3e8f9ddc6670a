/// The log lines about one client's connection: its open, its close, its
/// rejects. Each is an info line through the log's rate limit (LogThrottle),
/// so that no client, however fast it reconnects or however many messages it
/// gets refused, floods the log; the metrics count every event
/// (`tandem_connections_total`, `tandem_closes_total{code}`,
/// `tandem_rejects_total{code}`) and `tandem_log_lines_suppressed_total` the
/// lines left out (docs/operations.md, "Logs").
extension Server {
    /// Writes an info line of a connection's life (`kind`: `open`, `close`,
    /// `reject-limits`, `reject-unknown-room`), at most
    /// `LogThrottle.connectionBurst` of a kind per interval.
    func connectionLine(_ kind: String, _ line: @autoclosure () -> String) {
        lines.connectionLine(kind, line)
    }
}
