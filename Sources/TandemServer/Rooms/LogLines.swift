/// The server's log behind its rate limit (LogThrottle), shared by the
/// transport and the rooms so that one kind of line has one budget
/// whichever side writes it. Every line left out is counted
/// (`tandem_log_lines_suppressed_total`).
final class LogLines {
    let log: Log
    private let metrics: Metrics
    private var throttle = LogThrottle()

    init(log: Log, metrics: Metrics) {
        self.log = log
        self.metrics = metrics
    }

    /// Writes `line` at `level` unless lines of `kind` are being rate limited.
    func throttled(_ kind: String, _ level: LogLevel, _ line: () -> String) {
        guard level <= log.level else { return }
        switch throttle.admit(kind, at: MonotonicClock.now()) {
        case .suppress:
            metrics.transport.logLinesSuppressed += 1
        case let .write(suppressed):
            let text = line() + (suppressed > 0 ? " (\(suppressed) more like it left out)" : "")
            switch level {
            case .error: log.error(text)
            case .warn: log.warn(text)
            case .info: log.info(text)
            case .debug: log.debug(text)
            }
        }
    }

    /// Writes an info line of a connection's life (`kind`: `open`, `close`,
    /// `reject-limits`, `reject-unknown-room`, `welcome`, `preset`), at most
    /// `LogThrottle.connectionBurst` of a kind per interval.
    func connectionLine(_ kind: String, _ line: () -> String) {
        guard LogLevel.info <= log.level else { return }
        switch throttle.admit(kind, burst: LogThrottle.connectionBurst, at: MonotonicClock.now()) {
        case .suppress:
            metrics.transport.logLinesSuppressed += 1
        case let .write(suppressed):
            log.info(line() + (suppressed > 0 ? " (\(suppressed) more like it left out)" : ""))
        }
    }
}
