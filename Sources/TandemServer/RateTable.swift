import TandemCore

/// Token buckets by key (an OSC sender's address, a room, an HTTP token),
/// bounded in number: a key not seen since its bucket refilled is forgotten
/// first, so a flood of new keys (spoofed UDP sources) costs a bounded table.
/// The OSC bridge's limits and the HTTP API's budget (`HTTPBudget`). A pure
/// value: the caller passes the time.
struct RateTable {
    /// Tokens added per second and held at most, per key.
    let perSecond: Double
    let burst: Double
    /// Keys kept at most.
    let maxKeys: Int
    private var buckets: [String: (tokens: Double, updated: Moment)] = [:]

    init(perSecond: Double, burst: Double, maxKeys: Int = 4096) {
        self.perSecond = perSecond
        self.burst = burst
        self.maxKeys = max(1, maxKeys)
    }

    var count: Int { buckets.count }

    /// Takes one token from `key`'s bucket at `now`; `false` (nothing taken) when it is empty.
    mutating func take(_ key: String, at now: Moment) -> Bool {
        take(key, cost: 1, at: now) == 0
    }

    /// Takes `cost` tokens from `key`'s bucket at `now`: 0 when it had them,
    /// else how many it lacked (nothing is taken).
    mutating func take(_ key: String, cost: Double, at now: Moment) -> Double {
        var bucket = buckets[key] ?? (burst, now)
        if buckets[key] == nil, buckets.count >= maxKeys { evict(at: now) }
        if now > bucket.updated {
            bucket.tokens = min(burst, bucket.tokens + now.seconds(since: bucket.updated) * perSecond)
            bucket.updated = now
        }
        guard bucket.tokens >= cost else {
            buckets[key] = bucket
            return cost - bucket.tokens
        }
        bucket.tokens -= cost
        buckets[key] = bucket
        return 0
    }

    /// Forgets the refilled buckets; if that frees less than a quarter, the longest unused too.
    private mutating func evict(at now: Moment) {
        let refill = burst / perSecond
        buckets = buckets.filter { now.seconds(since: $0.value.updated) < refill }
        let target = maxKeys * 3 / 4
        guard buckets.count > target else { return }
        for (key, _) in buckets.sorted(by: { $0.value.updated < $1.value.updated }).prefix(buckets.count - target) {
            buckets[key] = nil
        }
    }
}
