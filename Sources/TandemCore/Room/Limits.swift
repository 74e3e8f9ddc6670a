/// A token bucket: `burst` messages at once, refilled at `perSecond`.
public struct TokenBucket: Sendable, Hashable {
    private var tokens: Double
    private var updated: Moment?

    public init(burst: Double) {
        tokens = burst
    }

    /// Takes `cost` tokens (one message's worth by default) if there are as many at `now`.
    public mutating func take(at now: Moment, perSecond: Double, burst: Double, cost: Double = 1) -> Bool {
        if let updated, now > updated {
            tokens = Swift.min(burst, tokens + now.seconds(since: updated) * perSecond)
        }
        updated = Swift.max(now, updated ?? now)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }
}

/// The limits a room enforces on its clients.
public struct RoomLimits: Sendable, Hashable {
    /// Seconds without a message on a gesture before its hold lapses (the gesture is cancelled).
    public var holdTimeout: Double
    /// Messages per second one client may send, sustained. A browser sends at
    /// most one move per animation frame per drag, 60–120 Hz, so 300 leaves room
    /// for two-finger drags on fast displays.
    public var messagesPerSecond: Double
    /// Messages one client may send at once above the sustained rate.
    public var burst: Double
    /// Rejects kept for a client that is not reading; beyond it they are counted and dropped,
    /// and its `ack` stops below the first one dropped (the server then closes it with 4008):
    /// an ack never stands for a refused message. More than a view may refuse at once
    /// after an owner change (the server's relayed messages, 256) and than a burst past
    /// the rate limit makes in one read (the 900 `rate_limited` of 1,500 messages at once).
    public var pendingRejects: Int
    /// Edits each member can undo (and, separately, redo); older ones are
    /// dropped, so a long session's history costs a bounded amount of memory.
    public var undoDepth: Int
    /// People announced one by one (`joined`, `left`, the welcome's `peers`).
    /// Past it, newcomers join quietly and are only counted (`present`), so a
    /// room of 10,000 watchers costs O(n) presence traffic rather than O(n²);
    /// when an announced person leaves, the longest-waiting quiet one is announced.
    public var presence: Int
    /// A claim lapses when its holder has neither written to the control nor
    /// claimed it again for this long (seconds; docs/protocol.md, "Claims").
    public var claimTimeout: Double

    public init(holdTimeout: Double = 10, messagesPerSecond: Double = 300, burst: Double = 600, pendingRejects: Int = 1024,
                undoDepth: Int = 50, presence: Int = 64, claimTimeout: Double = 300) {
        self.presence = Swift.max(0, presence)
        self.claimTimeout = claimTimeout
        self.holdTimeout = holdTimeout
        self.messagesPerSecond = messagesPerSecond
        self.burst = burst
        self.pendingRejects = pendingRejects
        self.undoDepth = undoDepth
    }
}
