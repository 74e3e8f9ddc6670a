import TandemCore

/// Rate limits log lines by kind, so that no flood (of refused connections,
/// timed-out handshakes, or lws' own complaints) floods the log: at most
/// `burst` lines of a kind per `interval`; the first line after a quiet
/// spell says how many were left out. A pure value: the caller passes the time.
struct LogThrottle {
    /// Lines of one kind written per interval before the rest are counted instead.
    let burst: Int
    /// Seconds per interval.
    let interval: Double
    private var kinds: [String: Window] = [:]
    /// Lines left out since start, for the metric.
    private(set) var suppressedTotal = 0

    private struct Window {
        var start: Moment
        var written = 0
        var suppressed = 0
    }

    /// What to do with a line.
    enum Verdict: Equatable {
        /// Write it; `suppressed` lines of its kind were left out before it.
        case write(suppressed: Int)
        /// Leave it out (counted).
        case suppress
    }

    init(burst: Int = 5, interval: Double = 10) {
        self.burst = burst
        self.interval = interval
    }

    /// Lines of a connection's life (`open`, `close`, a connection refused
    /// after its upgrade) per interval and kind: a room's people coming and
    /// going stay in the log, a reconnect loop or a flood of connects does not.
    static let connectionBurst = 50

    /// Whether a line of `kind` may be written at `now`; `burst` overrides
    /// the throttle's own for this kind.
    mutating func admit(_ kind: String, burst: Int? = nil, at now: Moment) -> Verdict {
        let burst = burst ?? self.burst
        var window = kinds[kind] ?? Window(start: now)
        if now.seconds(since: window.start) >= interval {
            let left = window.suppressed
            window = Window(start: now, written: 1)
            kinds[kind] = window
            return .write(suppressed: left)
        }
        if window.written < burst {
            window.written += 1
            kinds[kind] = window
            return .write(suppressed: 0)
        }
        window.suppressed += 1
        suppressedTotal += 1
        kinds[kind] = window
        return .suppress
    }
}
