import TandemCore

/// The rate budget of the HTTP requests a client can make the server work
/// for (docs/security.md, "Limits"): writes (a `PUT` of a control, a
/// reset, a restore, a preset's save, recall or delete) and
/// reads of the costly endpoints (the timeline, a moment of it, the history,
/// the preset list). One bucket per token (its `sub`) or, without auth, per
/// peer address, refilled at a WebSocket member's rate (`--http-rate`, as
/// `RoomLimits`: 300 a second, 600 at once); a write costs what one WebSocket message does, a read
/// costs more (`Cost`), as it does the server. Past it: 429 `rate_limited`
/// with `Retry-After`. A pure value: the caller passes the time.
struct HTTPBudget {
    /// The buckets, by token or address (at most `maxKeys`: past it, the
    /// idle ones, full again, go first, then the longest unused).
    private var table: RateTable

    /// What a request takes from its bucket, in WebSocket messages.
    enum Cost: Double {
        /// A write: one message's worth, as a `set` on a WebSocket.
        case write = 1
        /// The timeline's summary, a page of history, the preset list, a series.
        case read = 10
        /// The room at one past revision (`timeline/{rev}`): a snapshot and a replay.
        case moment = 30
    }

    /// Tokens added per second, and held at most (`RoomLimits`' message rate and burst; 0: no limit).
    init(perSecond: Double = RoomLimits().messagesPerSecond, burst: Double = RoomLimits().burst, maxKeys: Int = 10_000) {
        table = RateTable(perSecond: perSecond, burst: burst, maxKeys: maxKeys)
    }

    var perSecond: Double { table.perSecond }

    /// Buckets held now (for the tests and the metric).
    var count: Int { table.count }

    /// Takes `cost` from `key`'s bucket at `now`: `nil` when it had that much
    /// (at most the whole bucket is asked for), else the whole seconds until
    /// it will (the `Retry-After`); a refused request takes nothing.
    mutating func take(_ key: String, cost: Cost, at now: Moment) -> Int? {
        guard perSecond > 0 else { return nil } // --http-rate 0: no limit
        let lacking = table.take(key, cost: min(cost.rawValue, table.burst), at: now)
        guard lacking > 0 else { return nil }
        return max(1, Int((lacking / perSecond).rounded(.up)))
    }
}

extension HTTPBudget {
    /// What a request to `/api/` + `parts` costs; `nil`: it is not budgeted
    /// (the room list, a room's state, the cluster's: cheap reads; and the
    /// room admin API, creating, replacing or deleting a room, which needs the
    /// admin role, or loopback with auth off, and has `--max-rooms`).
    static func cost(_ method: HTTPMethod, _ parts: [String]) -> Cost? {
        guard parts.first == "rooms", parts.count >= 3 else { return nil }
        guard method == .get else { return .write } // HEAD is routed as GET
        switch parts[2] {
        case "timeline": return parts.count == 3 ? .read : .moment
        case "history", "history.csv", "presets", "series": return .read
        default: return nil
        }
    }
}

extension Server {
    /// The budget's answer to an authorised API request: `nil` to serve it,
    /// else 429 `rate_limited` with `Retry-After`. The bucket is the token's
    /// `sub`, or without auth the peer address (behind a proxy, the proxy's).
    func budgetRefusal(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer? {
        guard let cost = HTTPBudget.cost(exchange.method, parts) else { return nil }
        let key = exchange.claims.map { "sub " + $0.subject } ?? "peer " + (exchange.peer?.text ?? "unknown")
        guard let wait = httpBudget.take(key, cost: cost, at: MonotonicClock.now()) else { return nil }
        throttled("http-rate-limited", .info, "http: rate limited \(key) (\(exchange.method.name) of a \(cost) endpoint)")
        let rate = Int(httpBudget.perSecond)
        return .body(status: 429, contentType: "application/json",
                     bytes: problem("rate_limited", "more than \(rate) requests' worth a second (a write costs 1, a read of the timeline or history more); retry after \(wait) s"),
                     headers: [("Retry-After", String(wait))])
    }

}

extension HTTPExchange {
    /// The name the history gives an HTTP write: the token's display name, as a
    /// WebSocket member's is its own; without one (`api` then).
    var writerName: String? {
        guard let name = claims?.name.map(DisplayName.clean), !name.isEmpty else { return nil }
        return name
    }
}
