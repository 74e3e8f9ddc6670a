import TandemCore

/// Rate-limits log lines about refused requests: a flood of foreign origins,
/// bad hosts or slow bodies must not become a flood of log lines. The first
/// line of a kind is written; then at most one every `interval` seconds,
/// saying how many were left out meanwhile.
struct LogThrottle {
    /// Seconds between two lines of one kind.
    let interval: Double
    private var last: [String: Moment] = [:]
    private var suppressed: [String: Int] = [:]

    init(interval: Double = 10) {
        self.interval = interval
    }

    /// The line to write for an event of `kind` at `now` (with the count of
    /// those left out since the last one), or `nil` to stay quiet.
    mutating func line(_ kind: String, _ message: String, at now: Moment) -> String? {
        if let previous = last[kind], now.seconds(since: previous) < interval {
            suppressed[kind, default: 0] += 1
            return nil
        }
        last[kind] = now
        let skipped = suppressed.removeValue(forKey: kind) ?? 0
        return skipped == 0 ? message : "\(message) (and \(skipped) more like it in the last \(Int(interval)) s)"
    }
}
