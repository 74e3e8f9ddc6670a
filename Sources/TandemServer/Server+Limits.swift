#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim
import TandemCore

/// The server's view of its client sockets: the limiter's decisions, which
/// lws connection is which socket, and the echo sessions. One per server.
final class SocketTable {
    var limiter: ConnectionLimiter
    /// The socket accepted by the latest FILTER_NETWORK_CONNECTION, until
    /// lws creates its connection (WSI_CREATE, in the same call).
    var pending: ConnectionLimiter.SocketID?
    /// Per lws connection (`struct lws *` as an integer): its socket and when it was accepted.
    var byConnection: [Int: (id: ConnectionLimiter.SocketID, accepted: Moment)] = [:]
    /// The other way, to close a displaced socket.
    var connectionOf: [ConnectionLimiter.SocketID: OpaquePointer] = [:]
    /// Connections lws failed for a bad frame header, and when that was first
    /// seen (Server+Frames.swift, `dropFailedConnections`).
    var failing: [Int: Moment] = [:]
    /// Open echo connections, by session (Server+Echo.swift).
    var echoes: [UInt64: EchoSession] = [:]
    /// The descriptor limit the connection limit was derived from.
    let descriptorLimit: Int

    init(limits: ConnectionLimiter.Limits, descriptorLimit: Int) {
        limiter = ConnectionLimiter(limits)
        self.descriptorLimit = descriptorLimit
    }
}

extension Server {
    /// Descriptors kept out of the connection limit when it is derived: for
    /// standard streams, the listen sockets, SQLite's three files, the event
    /// loop's own descriptors, the static files being sent and headroom. A
    /// tenth of the limit, at least 64, plus the answer reserve
    /// (`ConnectionLimiter.defaultAnswerReserve`), so that accept(2) never
    /// meets EMFILE before the limiter says no.
    static func derivedConnectionLimit(descriptors: Int) -> Int {
        max(16, descriptors - max(64, descriptors / 10) - ConnectionLimiter.defaultAnswerReserve)
    }

    /// The process's descriptor limit, raised first from the soft to the hard
    /// limit (as most servers do: the soft default of 1,024 is a shell's, not a server's).
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let ceiling = rlim_t(1 << 20)
        let wanted = min(limit.rlim_max, ceiling)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, ceiling))
    }

    /// The socket table for `config`, its limits derived from the descriptor limit.
    static func makeSocketTable(_ config: ServerConfig) -> SocketTable {
        let descriptors = descriptorLimit()
        let derived = derivedConnectionLimit(descriptors: descriptors)
        // A --max-connections the descriptors cannot hold is held at the derived
        // limit (and warned, `applyLimits`): past it accept(2) met EMFILE and
        // the accept loop spun at three quarters of a core under the abuse probe.
        let limits = ConnectionLimiter.Limits(maxConnections: min(config.limits.maxConnections ?? derived, derived),
                                              maxPerAddress: config.limits.maxConnectionsPerAddress)
        tandem_mask_init(Int32(clamping: max(descriptors, limits.maxConnections + limits.answerReserve + 128)))
        return SocketTable(limits: limits, descriptorLimit: descriptors)
    }

    /// The lws settings that go with the limits: lws' own table of
    /// descriptors sized just above what the limiter lets in (so that lws
    /// pauses accepting, instead of spinning on EMFILE, should the limiter
    /// ever be passed), the header pool and the header deadline.
    func applyLimits(to info: inout lws_context_creation_info) {
        let limits = sockets.limiter.limits
        metrics.transport.maxConnections = limits.maxConnections
        // Listen sockets (2), lws' event pipe (2) and spare room for lws' own.
        let table = limits.maxConnections + limits.answerReserve + 16
        info.fd_limit_per_thread = UInt32(clamping: table)
        // Every socket may hold a header table (lws' default is one per descriptor):
        // slow handshakes never make a quick request wait for one.
        info.max_http_header_pool = UInt16(clamping: table)
        // How long a socket may hold a header table without a whole request:
        // from its accept (or the end of its previous request) to its last header line.
        info.timeout_secs_ah_idle = UInt32(config.limits.headerTimeout)
        if let wanted = config.limits.maxConnections, wanted > limits.maxConnections {
            log.warn("--max-connections \(wanted) is more than the descriptor limit (\(sockets.descriptorLimit), ulimit -n) leaves room for: holding at most \(limits.maxConnections); raise ulimit -n for more")
        }
    }

    /// The limits in force, for the start line.
    var limitsLine: String {
        let limits = sockets.limiter.limits
        return "max-connections=\(limits.maxConnections) max-connections-per-ip=\(limits.maxPerAddress == 0 ? "off" : String(limits.maxPerAddress)) header-timeout=\(config.limits.headerTimeout)s"
    }

    // MARK: lws callbacks

    /// LWS_CALLBACK_FILTER_NETWORK_CONNECTION: a socket was just accepted; non-zero closes it at once.
    func filterConnection(_ args: UnsafeMutableRawPointer?) -> Int32 {
        if let stale = sockets.pending { sockets.limiter.release(stale) } // lws failed to adopt the last one
        sockets.pending = nil
        var buffer = [CChar](repeating: 0, count: 64)
        let peer = args.flatMap { tandem_filter_peer($0, &buffer, Int32(buffer.count)) == 0 ? PeerAddress(text: string(buffer)) : nil }
        let decision = sockets.limiter.admit(peer)
        if let victim = decision.evict, let wsi = sockets.connectionOf[victim] {
            metrics.transport.displaced += 1
            throttled("displace", .info, "connections full (\(sockets.limiter.limits.maxConnections)): closing the oldest unfinished handshake to let a new connection in")
            lws_set_timeout(wsi, PENDING_TIMEOUT_HOLDING_AH, LWS_TO_KILL_ASYNC)
        }
        switch decision.admission {
        case .admit:
            break
        case let .answer(refusal):
            metrics.transport.refused[TransportMetrics.key(refusal, answered: true), default: 0] += 1
            throttled("refuse-\(refusal.rawValue)", .warn, refusalLine(refusal, peer, action: "answering 503 or close 1013"))
        case let .drop(refusal):
            metrics.transport.refused[TransportMetrics.key(refusal, answered: false), default: 0] += 1
            throttled("refuse-\(refusal.rawValue)", .warn, refusalLine(refusal, peer, action: "closing without an answer"))
            return 1
        }
        sockets.pending = decision.id
        return 0
    }

    private func refusalLine(_ refusal: ConnectionLimiter.Refusal, _ peer: PeerAddress?, action: String) -> String {
        switch refusal {
        case .full:
            "connection refused: the server holds its maximum of \(sockets.limiter.limits.maxConnections) connections (--max-connections); \(action)"
        case .perAddress:
            "connection refused: \(peer?.text ?? "?") holds its maximum of \(sockets.limiter.limits.maxPerAddress) connections (--max-connections-per-ip); \(action)"
        }
    }

    /// LWS_CALLBACK_WSI_CREATE: the connection lws made for the socket just accepted.
    func connectionCreated(_ wsi: OpaquePointer) {
        guard let id = sockets.pending else { return } // not an accepted socket (a listen socket)
        sockets.pending = nil
        sockets.byConnection[Int(bitPattern: UnsafeRawPointer(wsi))] = (id, MonotonicClock.now())
        sockets.connectionOf[id] = wsi
        metrics.transport.socketsOpen = sockets.limiter.open
    }

    /// LWS_CALLBACK_WSI_DESTROY: the socket is closed; its place is free.
    func connectionDestroyed(_ wsi: OpaquePointer) {
        guard let (id, accepted) = sockets.byConnection.removeValue(forKey: Int(bitPattern: UnsafeRawPointer(wsi))) else { return }
        sockets.connectionOf[id] = nil
        let departure = sockets.limiter.release(id)
        metrics.transport.socketsOpen = sockets.limiter.open
        // Closed by lws' header deadline: never a whole request, and held that long.
        if let departure, departure.neverRequested, !departure.evicted,
           MonotonicClock.now().seconds(since: accepted) >= Double(config.limits.headerTimeout) - 0.5 {
            metrics.transport.headerTimeouts += 1
            throttled("header-timeout", .info, "closed a connection that sent no whole request within \(config.limits.headerTimeout) s (--header-timeout)")
        }
    }

    /// A whole request (HTTP or a WebSocket handshake) arrived on `wsi`: no longer displaceable.
    func noteRequest(_ wsi: OpaquePointer) {
        guard let socket = sockets.byConnection[Int(bitPattern: UnsafeRawPointer(wsi))] else { return }
        sockets.limiter.requested(socket.id)
    }

    /// Why `wsi` was let in only to be told no, if it was.
    func admissionRefusal(_ wsi: OpaquePointer) -> ConnectionLimiter.Refusal? {
        guard let socket = sockets.byConnection[Int(bitPattern: UnsafeRawPointer(wsi))],
              case let .answer(refusal) = sockets.limiter.admission(of: socket.id) else { return nil }
        return refusal
    }

    /// An HTTP request on a socket past the limits: 503 (after which lws closes
    /// it), except `/healthz` and `/metrics`, which answer as ever so that a
    /// full server can still be watched. `nil`: serve the request.
    func refuseOverLimit(_ wsi: OpaquePointer, path: String) -> Int32? {
        noteRequest(wsi)
        guard let refusal = admissionRefusal(wsi), path != "/healthz", path != "/metrics" else { return nil }
        let message = refusal == .full
            ? "the server holds its maximum of connections; try again later"
            : "too many connections from your address; close some and try again"
        metrics.httpRequests[503, default: 0] += 1
        _ = answerHTTP(wsi, status: 503, code: refusal.rawValue, message: message, header: ("Retry-After:", "5"))
        return -1
    }

    /// The close that tells a WebSocket past the limits why (1013), if it is one.
    func closeForLimits(_ wsi: OpaquePointer) -> (code: UInt16, reason: String)? {
        switch admissionRefusal(wsi) {
        case .full?: (1013, "server full")
        case .perAddress?: (1013, "too many connections from your address")
        case nil: nil
        }
    }

    /// Writes a whole JSON error answer in one go; `true` if it was written.
    func answerHTTP(_ wsi: OpaquePointer, status: Int, code: String, message: String, header: (String, String)? = nil) -> Bool {
        let body = Array("{\"code\":\"\(code)\",\"message\":\"\(message)\"}\n".utf8)
        return body.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                tandem_answer_http(wsi, UInt32(status), chars.baseAddress, chars.count, header?.0, header?.1) == 0
            }
        }
    }

    /// Writes `line` at `level` unless lines of `kind` are being rate limited (Rooms/LogLines.swift).
    func throttled(_ kind: String, _ level: LogLevel, _ line: @autoclosure () -> String) {
        lines.throttled(kind, level, line)
    }
}
