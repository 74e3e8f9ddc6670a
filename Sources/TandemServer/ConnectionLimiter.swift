/// Who may hold one of the server's sockets: `--max-connections` and
/// `--max-connections-per-ip` as a pure type, with no sockets and no clock.
/// One of these per server, told of every accepted socket, of every socket
/// that finished a request, and of every socket that went away.
///
/// Every client socket counts, HTTP or WebSocket, finished handshake or not:
/// a socket is a file descriptor, and descriptors are what runs out.
///
/// Past the limit a socket is let in over the limit to be told no (HTTP 503,
/// or close 1013 after the handshake), up to `answerReserve` such sockets at
/// once. Past that too, it displaces the oldest socket that has not yet sent
/// a whole request (a slow or silent handshake, the slowloris kind), taking
/// its slot or its place in the reserve: a flood of idle connects then only
/// ever pushes out itself, and a request that arrives whole (a browser, a
/// `/healthz` probe) gets its answer. Only when every socket has sent a
/// request is the newcomer closed at once, without an answer.
struct ConnectionLimiter {
    /// The limits, as configured.
    struct Limits: Equatable {
        /// Client sockets held at once (not counting those being told no).
        var maxConnections: Int
        /// Sockets held at once per peer address; 0: no per-address limit.
        var maxPerAddress: Int
        /// Whether loopback peers (a reverse proxy on the same host,
        /// `make bench`) are exempt from the per-address limit.
        var exemptLoopback = true
        /// Sockets let in past the limits only to be answered 503 or 1013.
        var answerReserve = ConnectionLimiter.defaultAnswerReserve
    }

    /// What happens to a newly accepted socket.
    enum Admission: Equatable {
        /// It takes a slot.
        case admit
        /// It is served only to be told no: HTTP 503, WebSocket close 1013.
        case answer(Refusal)
        /// It is closed at once, without an answer.
        case drop(Refusal)
    }

    /// Why a socket was refused; the raw value is the metric's label.
    enum Refusal: String, CaseIterable {
        /// `--max-connections` reached.
        case full = "server_full"
        /// `--max-connections-per-ip` reached for the peer's address.
        case perAddress = "per_address"
    }

    /// One accepted socket, by the id `admit` gave it.
    typealias SocketID = UInt64

    /// What `admit` decided, and the socket to close to make room, if any.
    struct Decision: Equatable {
        var id: SocketID
        var admission: Admission
        /// An older socket with no request yet that gives its slot up: the caller closes it.
        var evict: SocketID?
    }

    /// What the limiter knew of a socket that went away.
    struct Departure: Equatable {
        var admission: Admission
        /// Whether it never sent a whole request.
        var neverRequested: Bool
        /// Whether it was closed to make room for another.
        var evicted: Bool
    }

    /// Sockets let in past the limits to be answered, by default: enough to
    /// tell a burst of newcomers why, few enough to cost little.
    static let defaultAnswerReserve = 64

    let limits: Limits
    /// Sockets holding a slot.
    private(set) var admitted = 0
    /// Sockets let in past the limit to be told no.
    private(set) var answering = 0
    private var perAddress: [PeerAddress: Int] = [:]
    private var entries: [SocketID: Entry] = [:]
    /// Sockets with no request yet, oldest first; ids of sockets that
    /// left or sent a request are skipped when met (see `evictable`).
    private var unfinished: [SocketID] = []
    private var unfinishedHead = 0
    private var nextID: SocketID = 1

    private struct Entry {
        var peer: PeerAddress?
        var admission: Admission
        var requested = false
        var evicted = false
    }

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// Sockets open, of every kind.
    var open: Int { entries.count }

    /// Decides on a socket just accepted from `peer` (`nil`: unknown address).
    mutating func admit(_ peer: PeerAddress?) -> Decision {
        let id = nextID
        nextID += 1
        var evict: SocketID?
        let admission: Admission
        if let peer, limits.maxPerAddress > 0, !(limits.exemptLoopback && peer.isLoopback),
           perAddress[peer, default: 0] >= limits.maxPerAddress {
            admission = answering < limits.answerReserve ? .answer(.perAddress) : .drop(.perAddress)
        } else if admitted < limits.maxConnections {
            admission = .admit
        } else if answering < limits.answerReserve {
            admission = .answer(.full)
        } else if let oldest = evictable(), let victim = entries[oldest] {
            // The newcomer takes the slot or the answer place of the oldest unfinished socket.
            entries[oldest]?.evicted = true
            evict = oldest
            if case .admit = victim.admission {
                admitted -= 1
                admission = .admit
            } else {
                answering -= 1
                admission = .answer(.full)
            }
        } else {
            admission = .drop(.full)
        }
        switch admission {
        case .admit: admitted += 1
        case .answer: answering += 1
        case .drop: return Decision(id: id, admission: admission, evict: nil)
        }
        unfinished.append(id)
        entries[id] = Entry(peer: peer, admission: admission)
        if let peer { perAddress[peer, default: 0] += 1 }
        return Decision(id: id, admission: admission, evict: evict)
    }

    /// The socket sent a whole request (HTTP, or a WebSocket handshake): it is no longer displaceable.
    mutating func requested(_ id: SocketID) {
        entries[id]?.requested = true
    }

    /// What `admit` decided for a socket still open.
    func admission(of id: SocketID) -> Admission? {
        entries[id]?.admission
    }

    /// The socket went away: its slot (or its answer place) is free again.
    @discardableResult
    mutating func release(_ id: SocketID) -> Departure? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        switch entry.admission {
        case .admit where !entry.evicted: admitted -= 1
        case .answer where !entry.evicted: answering -= 1
        default: break
        }
        if let peer = entry.peer {
            let left = perAddress[peer, default: 1] - 1
            perAddress[peer] = left > 0 ? left : nil
        }
        compactUnfinished()
        return Departure(admission: entry.admission, neverRequested: !entry.requested, evicted: entry.evicted)
    }

    /// Sockets held by `peer`, of every kind.
    func count(from peer: PeerAddress) -> Int {
        perAddress[peer, default: 0]
    }

    /// The oldest socket that has sent no request yet and is not already being closed.
    private mutating func evictable() -> SocketID? {
        while unfinishedHead < unfinished.count {
            let id = unfinished[unfinishedHead]
            unfinishedHead += 1
            if let entry = entries[id], !entry.requested, !entry.evicted { return id }
        }
        return nil
    }

    /// Drops the skipped part of the queue once it is most of it, so the queue stays as long as the sockets.
    private mutating func compactUnfinished() {
        if unfinishedHead > 64 && unfinishedHead * 2 > unfinished.count {
            unfinished.removeFirst(unfinishedHead)
            unfinishedHead = 0
        }
        if unfinished.count > 2 * entries.count + 64 {
            unfinished = unfinished[unfinishedHead...].filter { entries[$0].map { !$0.requested && !$0.evicted } ?? false }
            unfinishedHead = 0
        }
    }
}
