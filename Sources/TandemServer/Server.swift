#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim
import TandemAuth
import TandemCore
import TandemStorage
import TandemWire

/// Why the server could not start.
public struct ServerError: Error, CustomStringConvertible {
    public var description: String
}

/// The tandem server: one libwebsockets context on one thread, serving the
/// WebSocket protocol and HTTP on the same port.
///
/// Everything happens on the thread that calls `run()`; lws callbacks come
/// back to this object through the context's user pointer. No locks: the only
/// thing another context may do is a signal, which the C shim turns into
/// `lws_cancel_service`.
public final class Server {
    let config: ServerConfig
    /// The `Host` and `Origin` rules of `config`, parsed once (RequestPolicy.swift, Server+Origins.swift).
    let requestPolicy: RequestPolicy
    let log: Log
    let metrics = Metrics()
    /// Tokens and roles, when a secret is configured (Server+Auth.swift); `nil`: auth is off.
    let authGate: AuthGate?
    /// Client sockets and the connection limits (Server+Limits.swift).
    let sockets: SocketTable
    /// The rooms served, by id and in listing order (Rooms/RoomTable.swift).
    let rooms: RoomTable
    var connections: [UInt64: Connection] = [:]
    var exchanges: [UInt64: HTTPExchange] = [:]
    /// Keeps floods (refused requests and tokens, timeouts, lws' complaints) from
    /// flooding the log: every rate-limited line goes through `throttled` (Server+Limits.swift).
    let lines: LogLines
    /// The rooms behind their seam: local (memory or SQLite) or replicated
    /// (Redis), chosen once in `init` (Rooms/RoomService.swift).
    let service: any RoomService
    /// The rate budget of costly HTTP requests (HTTPBudget.swift).
    lazy var httpBudget = HTTPBudget(perSecond: config.limits.httpRate, burst: 2 * config.limits.httpRate)
    private var nextSession: UInt64 = 1
    private var nextClient = 1
    private(set) var context: OpaquePointer?
    private var protocols: UnsafeMutablePointer<lws_protocols>
    let protocolName: UnsafeMutablePointer<CChar>
    private var hostName: UnsafeMutablePointer<CChar>?
    /// The certificate, key and TLS settings lws keeps (Server+TLS.swift), when TLS is on.
    var tlsOptions: TLSOptions?
    private var timer: UnsafeMutablePointer<tandem_timer>
    private var timerDue = Moment.zero
    /// The rooms waiting for a flush and the timer that wakes the loop for the earliest (Server+FanOut.swift).
    var flushes: FlushSchedule
    /// When to hand freed heap back to the kernel (MemoryTrim.swift).
    var memoryTrim = MemoryTrim()
    /// A reusable write buffer with LWS_PRE bytes of headroom.
    private var scratch = ScratchBuffer(capacity: 64 * 1024)
    /// The libuv loop, when `--event-loop uv`; lws runs inside it.
    private var uvLoop: UnsafeMutableRawPointer?
    private var foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    let pre = tandem_lws_pre()
    /// How frames leave: straight to the socket, in io_uring batches, or through lws under TLS (SendPath.swift).
    let sends: SendPath
    /// When shutdown began.
    private(set) var stopping: Moment?
    /// The OSC bridge (`--osc-send`, `--osc-listen`; Server+OSC.swift), if any.
    var osc: OSCBridge?
    /// The server's own sockets, on plain TCP with `--sockets own` (Transport/).
    private(set) var ownSockets: OwnSockets?
    /// The port actually listened on (the configured one, or the one picked for port 0).
    public private(set) var port = 0

    /// How often housekeeping runs: lapsed holds, slow consumers, loop lag.
    static let tick: Int64 = 250_000

    /// The per-connection receive buffer lws allocates for every WebSocket
    /// (plus `LWS_PRE` and 4 bytes), held for the connection's life. Client
    /// messages are small (a drag is under 150 bytes) and lws hands a longer
    /// one over in pieces that `received` joins (up to `--max-frame`), so 160
    /// bytes serve: 352 bytes less per idle connection than 512 did
    /// (docs/benchmarks.md, "Idle memory").
    static let receiveBuffer = 160

    /// The most lws sends in one `send()` (its `tx_packet_size`): any frame
    /// but a huge welcome leaves whole. It is a cap, not a buffer; nothing
    /// per connection is allocated for it.
    static let sendLimit = 64 * 1024

    /// Creates the lws context and starts listening. `rooms` are the built-in
    /// rooms (the demo); those of `config.roomsDir` follow them, a file with a
    /// built-in room's id replacing it in place.
    public init(config: ServerConfig, rooms schemas: [RoomSchema]) throws(ServerError) {
        self.config = config
        requestPolicy = RequestPolicy(access: config.access, bindAddress: config.host, tls: config.tls != nil)
        sends = SendPath(tls: config.tls != nil, sends: config.sends)
        log = Log(level: config.logLevel, format: config.logFormat)
        lines = LogLines(log: log, metrics: metrics)
        authGate = config.access.authEnabled ? AuthGate(settings: config.access) : nil
        sockets = Self.makeSocketTable(config)
        let configured = try config.roomsDir.map { dir throws(ServerError) in try RoomFiles.load(directory: dir) } ?? []
        let builtIn = Set(schemas.map(\.id))
        let rooms = RoomTable(builtIn: builtIn)
        self.rooms = rooms
        var ordered: [(schema: RoomSchema, fromFile: Bool)] = schemas.map { schema in
            configured.first { $0.id == schema.id }.map { ($0, true) } ?? (schema, false)
        }
        for schema in configured where !builtIn.contains(schema.id) { ordered.append((schema, true)) }
        if config.eventLoop == .uv {
            guard let loop = tandem_uv_loop_create() else { throw ServerError(description: "cannot create a libuv loop") }
            uvLoop = loop
        }
        service = try RoomServices.make(config: config, ordered: ordered, lines: lines, metrics: metrics, rooms: rooms, loop: uvLoop)
        protocolName = strdup("tandem.v1")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = tandemCallback
        protocols[0].per_session_data_size = MemoryLayout<UInt64>.size
        protocols[0].rx_buffer_size = Self.receiveBuffer
        // Without it lws caps every send at rx_buffer_size: a bigger frame
        // would leave in two sends, its tail as an extra writable callback.
        protocols[0].tx_packet_size = Self.sendLimit
        timer = .allocate(capacity: 1)
        timer.initialize(to: tandem_timer())
        let flushTimer = UnsafeMutablePointer<tandem_timer>.allocate(capacity: 1)
        flushTimer.initialize(to: tandem_timer())
        flushes = FlushSchedule(timer: flushTimer)

        routeLwsLog()
        var info = lws_context_creation_info()
        info.port = Int32(config.port)
        if config.host != "0.0.0.0" && config.host != "::" {
            hostName = strdup(config.host)
            info.iface = UnsafePointer(hostName)
        }
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.retry_and_idle_policy = tandem_idle_policy(UInt16(max(1, config.idleTimeout / 3)), UInt16(max(2, config.idleTimeout)))
        applyLimits(to: &info)
        info.max_http_header_data = UInt16(Self.headerTableBytes) // Server+HeaderLimits.swift
        try Self.checkAddress(config.host)
        var options: UInt64 = 0
        if !config.host.contains(":") { options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
        if let uvLoop {
            options |= UInt64(LWS_SERVER_OPTION_LIBUV)
            foreignLoops = .allocate(capacity: 1)
            foreignLoops?.initialize(to: uvLoop)
            info.foreign_loops = foreignLoops
        }
        info.options = options
        try applyTLS(to: &info)
        guard let context = lws_create_context(&info) else {
            throw ServerError(description: "cannot listen on \(config.host):\(config.port) (in use, not an address of this machine, or no permission)")
        }
        // With a foreign (libuv) loop lws returns a context even when its vhost
        // failed (port in use, a certificate it refused): without the vhost
        // nothing listens, so this is a failed start, never a server on port 0.
        // That half-made context is left alone (destroying it crashes lws 4.1): the process exits.
        guard let vhost = lws_get_vhost_by_name(context, "default") else {
            uvLoop = nil
            throw ServerError(description: "cannot listen on \(config.host):\(config.port) (in use, not an address of this machine, no permission, or a TLS certificate lws refused)")
        }
        self.context = context
        port = Int(lws_get_vhost_listen_port(vhost))
        timer.pointee.context = context
        timer.pointee.fire = { Server.owning($0)?.housekeeping() }
        timerDue = MonotonicClock.now().adding(seconds: Double(Self.tick) / 1e6)
        tandem_timer_schedule(timer, Self.tick)
        flushes.timer.pointee.context = context
        flushes.timer.pointee.fire = { Server.owning($0)?.flushTimerFired() }
        tandem_signals_install(context)
        service.delivery = self
        service.observer = self
        if config.sockets == .own && sends.direct {
            ownSockets = try Self.openOwnSockets(context: context, vhost: vhost, loop: uvLoop, protocolName: protocolName)
        }
        try startOSC(vhost: vhost)
        service.osc = osc
    }

    /// lws keeps waiting for an address that is not on this machine (for interfaces
    /// that come up later) instead of failing; a server should fail at start.
    private static func checkAddress(_ host: String) throws(ServerError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        let fd: Int32
        var result: Int32
        if inet_pton(AF_INET, host, &v4) == 1 {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr = v4
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = v6
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            return // an interface name: lws resolves it
        }
        let error = errno
        if fd >= 0 { Glibc.close(fd) }
        if result != 0 {
            throw ServerError(description: "cannot listen on \(host): \(String(cString: strerror(error)))")
        }
    }

    deinit {
        if let context { lws_context_destroy(context) }
        if let uvLoop { tandem_uv_loop_finish(uvLoop) }
        foreignLoops?.deallocate()
        protocols.deallocate()
        free(protocolName)
        free(hostName)
        timer.deallocate()
        flushes.timer.deallocate()
        scratch.free()
    }

    /// The start line: where to connect, what is served, and the security mode.
    public var startLine: String {
        "tandem listening on \(config.httpScheme)://\(config.host):\(port) rooms=\(rooms.order.joined(separator: ",")) mode=\(authGate == nil ? "open" : "token") event-loop=\(config.eventLoop.rawValue) sends=\(sendsName) sockets=\(ownSockets == nil ? "lws" : "own") \(service.startDescription) web=\(config.webRoot)"
    }

    /// How frames leave: `io_uring` (round batches), `send`, or `tls` (through lws and OpenSSL).
    var sendsName: String { sends.name }

    /// Serves until SIGINT or SIGTERM, then closes every client with 1001 and returns (within 5 s).
    public func run() {
        service.start { [uvLoop, context] in (uvLoop.map { tandem_uv_run_once($0) } ?? lws_service(context, 0)) >= 0 }
        log.always(startLine)
        logAuthMode()
        if let problem = sends.problem {
            log.warn("io_uring is not available (\(problem)): frames go out with one send() each")
        }
        logOriginPolicy()
        log.info("limits: \(limitsLine)")
        announceOSC()
        service.started()
        guard let context else { return }
        while (uvLoop.map { tandem_uv_run_once($0) } ?? lws_service(context, 0)) >= 0 {
            service.endOfTurn()
            flushOSC()
            flushDueRooms()
            if let stopping {
                if connections.isEmpty || MonotonicClock.now().seconds(since: stopping) > 4 { break }
            }
        }
        tandem_timer_cancel(timer)
        tandem_timer_cancel(flushes.timer)
        service.endOfTurn()
        flushOSC()
        if let osc { tandem_timer_cancel(osc.timer) }
        service.stop()
        lws_context_destroy(context)
        self.context = nil
        service.finish()
        if let uvLoop {
            tandem_uv_loop_finish(uvLoop)
            self.uvLoop = nil
        }
        log.info("stopped")
    }

    // MARK: housekeeping

    /// Every 250 ms: lapsed holds, slow consumers, expired tokens, rate-limit windows, event loop lag.
    func housekeeping() {
        let now = MonotonicClock.now()
        metrics.loopLag.observe(max(0, now.seconds(since: timerDue)))
        timerDue = now.adding(seconds: Double(Self.tick) / 1e6)
        tandem_timer_schedule(timer, Self.tick)
        service.tick(at: now)
        oscHousekeeping(at: now)
        for connection in connections.values {
            if let armed = connection.armedSince, connection.closing == nil, now.seconds(since: armed) >= config.slowTimeout {
                throttled("slow-consumer", .warn, "slow consumer \(connection.client): unwritable for \(Int(config.slowTimeout)) s, closing with 4008")
                close(connection, code: 4008, reason: "slow consumer")
                // It may never become writable again: give the close frame 2 s, then drop the socket.
                hangUp(connection, within: 2)
            }
        }
        closeExpiredSessions(at: now)
        dropFailedConnections(at: now)
        hangUpOverdue(at: now)
        if memoryTrim.tick(open: connections.count, at: now) {
            let start = MonotonicClock.now()
            _ = tandem_malloc_trim()
            metrics.memoryTrims += 1
            log.debug("memory: heap trimmed after a burst of connections in \(Int(MonotonicClock.now().seconds(since: start) * 1e6)) µs")
        }
        if tandem_signal_received() != 0 { beginShutdown() }
    }

    /// Closes every client with 1001; `run()` returns once they are gone or after 4 s.
    func beginShutdown() {
        guard stopping == nil else { return }
        stopping = MonotonicClock.now()
        log.info("shutting down: closing \(connections.count) connection(s) with 1001")
        for connection in connections.values { close(connection, code: 1001, reason: "server shutting down") }
    }

    // MARK: sessions

    func newSession(_ user: UnsafeMutableRawPointer?) -> UInt64 {
        let id = nextSession
        nextSession += 1
        user?.storeBytes(of: id, as: UInt64.self)
        return id
    }

    func newClientID() -> ClientID {
        defer { nextClient += 1 }
        return ClientID("\(service.clientPrefix)c\(nextClient)")
    }

    // MARK: writing

    /// Writes `bytes` as one text (or `binary`) frame, or one HTTP body chunk, with lws' headroom.
    @discardableResult
    func write(_ wsi: OpaquePointer, _ bytes: [UInt8], http: Bool = false, final: Bool = true, binary: Bool = false) -> Bool {
        let needed = pre + bytes.count
        scratch.reserve(needed)
        let target = scratch.base
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { (target + pre).copyMemory(from: base, byteCount: src.count) }
        }
        let buffer = target.assumingMemoryBound(to: UInt8.self)
        let written = http ? tandem_write_http(wsi, buffer, bytes.count, final ? 1 : 0) : tandem_write_frame(wsi, buffer, bytes.count, binary ? 1 : 0)
        return written >= bytes.count
    }
}

/// The one lws callback: recovers the server from the context's user pointer and hands over.
func tandemCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                    _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let server = Server.owning(lws_get_context(wsi)) else { return 0 }
    return server.handle(wsi, reason, user, input, length)
}

extension Server {
    /// The server an lws context belongs to (its user pointer), for the C callbacks.
    static func owning(_ context: OpaquePointer?) -> Server? {
        guard let context, let raw = lws_context_user(context) else { return nil }
        return Unmanaged<Server>.fromOpaque(raw).takeUnretainedValue()
    }
}
