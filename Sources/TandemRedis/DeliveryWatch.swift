/// The delivery probe's bookkeeping (pure: times are seconds on any monotonic
/// clock). A node publishes a probe every second on a channel only it follows
/// and must hear it back on its subscriber: delivery is stalled when the oldest
/// probe not heard back was sent `bound` seconds ago or more. Hearing a probe
/// answers it and every earlier one (a subscriber hears them in order).
public struct DeliveryWatch: Sendable {
    public struct Probe: Sendable, Hashable {
        public var token: Int
        public var sentAt: Double
    }

    /// How long a probe may take to come back.
    public let bound: Double
    /// Probes sent and not heard back, oldest first (at most `limit`, the oldest always kept).
    public private(set) var outstanding: [Probe] = []
    /// The last round trip heard (seconds).
    public private(set) var lastRoundTrip: Double?
    public static let limit = 64
    private var next = 1

    public init(bound: Double = 3) {
        self.bound = bound
    }

    /// A probe goes out now: its token (increasing).
    public mutating func send(at now: Double) -> Int {
        let token = next
        next += 1
        if outstanding.count >= Self.limit { outstanding.remove(at: 1) }
        outstanding.append(Probe(token: token, sentAt: now))
        return token
    }

    /// Probe `token` came back: it and every earlier one are answered.
    /// `false` for a token that is not outstanding (already answered, or before a reset).
    @discardableResult
    public mutating func heard(_ token: Int, at now: Double) -> Bool {
        guard let index = outstanding.firstIndex(where: { $0.token == token }) else { return false }
        lastRoundTrip = max(0, now - outstanding[index].sentAt)
        outstanding.removeFirst(index + 1)
        return true
    }

    /// How long the oldest probe not heard back has been out, when that is `bound` or more.
    public func stalled(at now: Double) -> Double? {
        guard let oldest = outstanding.first, now - oldest.sentAt >= bound else { return nil }
        return now - oldest.sentAt
    }

    /// The connections went down (or came back): nothing sent before is waited for.
    public mutating func reset() {
        outstanding.removeAll()
    }
}
