#if canImport(Glibc)
import Glibc
import Foundation
import CLibWebSockets
import CTandemShim

/// libwebsockets' client API. One transport owns one lws context and one
/// service thread (started at its first use, ended when the last copy of the
/// transport is gone): it services every connection the transport opens, runs
/// the transport's timers (`schedule(after:_:)`) and the jobs of its task
/// executor (`executor`). A session's token refresh and reconnect back-off are
/// timed there, so they do not wait for a thread of Swift's cooperative pool.
/// Other threads hand work over through a locked queue and `lws_cancel_service`.
public struct LwsTransport: WebSocketTransport {
    /// Stops the loop when the last copy of the transport is gone.
    private final class Owner: Sendable {
        let loop = LwsLoop()
        deinit { loop.shutdown() }
    }

    private let owner = Owner()

    public init() {}

    public func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection {
        guard let parts = URLComponents(string: url), let host = parts.host,
              parts.scheme == "ws" else {
            throw .badURL("\(url) (expected ws://host:port/rooms/ROOM)")
        }
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        let connection = LwsConnection(loop: owner.loop, host: host, port: parts.port ?? 80, path: path, events: events)
        try owner.loop.connect(connection)
        return connection
    }

    /// Runs `action` on the transport's service thread, between two rounds of its I/O.
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer {
        owner.loop.schedule(after: seconds, action)
    }

    /// Runs jobs on the transport's service thread, between two rounds of its I/O.
    public var executor: any TaskExecutor { owner.loop }
}

/// One lws context and the thread that services it: the connections, timers
/// and executor jobs of one `LwsTransport`. Each round of the thread runs what
/// other threads queued (connects, frames to send, closes, jobs), then the
/// timers that are due, then one `lws_service`, whose wait ends at the next
/// timer (an lws timer, `tandem_timer`, set to it) or when another thread
/// queues something (`lws_cancel_service`). Timers and jobs run outside every
/// lock and outside lws' callbacks.
final class LwsLoop: TaskExecutor, @unchecked Sendable {
    private struct Timer {
        var deadline: UInt64
        var id: Int
        var action: @Sendable () -> Void
    }

    private enum State { case idle, running, stopping, stopped }

    /// How early (ns) a timer may run: lws' wait is in whole milliseconds.
    private static let slack: UInt64 = 1_000_000
    /// How long (ns) a stopping loop waits for its connections to close.
    private static let stopWait: UInt64 = 2_000_000_000

    // Shared with other threads: only under `lock`.
    private let lock = NSLock()
    private var state = State.idle
    private var context: OpaquePointer?
    private var connects: [LwsConnection] = []
    private var kicked: [LwsConnection] = []
    private var jobs: [UnownedJob] = []
    /// By deadline, then by the order they were set.
    private var timers: [Timer] = []
    private var nextTimer = 0
    private var stopBy: UInt64?
    /// Where timers and jobs go when the loop cannot run (no context) or has stopped.
    private let fallback = DispatchClock(label: "tandem-lws-fallback")

    // The service thread's own.
    private var live: [Int: LwsConnection] = [:]
    private var nextConnection = 0
    private var closingAll = false
    private let wake: UnsafeMutablePointer<tandem_timer>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let protocols: UnsafeMutablePointer<lws_protocols>

    init() {
        protocolName = strdup("tandem.v1")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = lwsClientCallback
        wake = .allocate(capacity: 1)
        wake.initialize(to: tandem_timer())
        // The wake-up only ends lws' wait; the loop then runs the due timers itself.
        wake.pointee.fire = { _ in }
    }

    deinit {
        free(protocolName)
        protocols.deallocate()
        wake.deallocate()
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Creates the context and starts the thread, once; false when the loop cannot run.
    /// Called under `lock`.
    private func startLocked() -> Bool {
        switch state {
        case .running: return true
        case .stopping, .stopped: return false
        case .idle: break
        }
        lws_set_log_level(0, nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        guard let context = lws_create_context(&info) else {
            state = .stopped
            return false
        }
        self.context = context
        wake.pointee.context = context
        state = .running
        // The thread keeps the loop alive until it ends.
        let thread = Thread { [self] in serve() }
        thread.name = "tandem-lws"
        thread.start()
        return true
    }

    /// Wakes the service thread out of `lws_service`. Called under `lock`.
    private func wakeLocked() {
        if let context { lws_cancel_service(context) }
    }

    // MARK: From any thread

    /// Queues `connection` to be connected by the service thread.
    func connect(_ connection: LwsConnection) throws(TandemError) {
        let started = lock.withLock { () -> Bool in
            guard startLocked() else { return false }
            connects.append(connection)
            wakeLocked()
            return true
        }
        if !started { throw .transport("cannot create a libwebsockets context") }
    }

    /// Asks the service thread to look at `connection` (frames queued, a close asked for).
    func kick(_ connection: LwsConnection) {
        lock.withLock {
            guard state == .running || state == .stopping else { return }
            kicked.append(connection)
            wakeLocked()
        }
    }

    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer {
        let delay = seconds > 0 ? UInt64(min(seconds, 1e9) * 1e9) : 0
        let id = lock.withLock { () -> Int? in
            guard startLocked() else { return nil }
            nextTimer += 1
            let timer = Timer(deadline: Self.now() + delay, id: nextTimer, action: action)
            let index = timers.firstIndex { $0.deadline > timer.deadline } ?? timers.endIndex
            timers.insert(timer, at: index)
            if index == 0 { wakeLocked() }
            return timer.id
        }
        guard let id else { return fallback.schedule(after: seconds, action) }
        return LwsTimer(loop: self, id: id)
    }

    func cancel(timer id: Int) {
        // The action is released outside the lock.
        let removed = lock.withLock { () -> Timer? in
            guard let index = timers.firstIndex(where: { $0.id == id }) else { return nil }
            return timers.remove(at: index)
        }
        _ = removed
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = lock.withLock { () -> Bool in
            guard startLocked() || state == .stopping else { return false }
            jobs.append(job)
            wakeLocked()
            return true
        }
        // A stopped loop still runs what it is given, elsewhere: a task must not hang.
        if !queued { fallback.queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }

    /// Closes every connection and ends the thread (the last transport is gone).
    func shutdown() {
        lock.withLock {
            switch state {
            case .idle: state = .stopped
            case .running:
                state = .stopping
                stopBy = Self.now() + Self.stopWait
                wakeLocked()
            case .stopping, .stopped: break
            }
        }
    }

    // MARK: The service thread

    private func serve() {
        guard let context = lock.withLock({ self.context }) else { return }
        while true {
            let now = Self.now()
            let (connects, kicked, jobs, due, stopping) = lock.withLock {
                () -> ([LwsConnection], [LwsConnection], [UnownedJob], [Timer], Bool) in
                let ripe = timers.prefix { $0.deadline <= now + Self.slack }
                defer {
                    self.connects = []
                    self.kicked = []
                    self.jobs = []
                    timers.removeFirst(ripe.count)
                }
                return (self.connects, self.kicked, self.jobs, Array(ripe), state == .stopping)
            }
            for connection in connects { begin(connection, context) }
            for connection in kicked { connection.serviceKick() }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            for timer in due { timer.action() }
            if stopping {
                if !closingAll {
                    closingAll = true
                    for connection in Array(live.values) { connection.closeFromLoop() }
                }
                if live.isEmpty || now >= lock.withLock({ stopBy ?? 0 }) { break }
            }
            // lws' wait ends at the next deadline at the latest.
            let next = lock.withLock { () -> UInt64? in
                [timers.first?.deadline, stopBy].compactMap { $0 }.min()
            }
            if let next {
                let later = Self.now()
                tandem_timer_schedule(wake, Int64(next > later ? (next - later) / 1000 : 0))
            } else {
                tandem_timer_cancel(wake)
            }
            if lws_service(context, 0) < 0 { break }
        }
        tandem_timer_cancel(wake)
        lock.withLock { self.context = nil }
        // Closes what is left; lws reports each one (and `finish` whatever it did not).
        lws_context_destroy(context)
        for connection in Array(live.values) { connection.finish(code: 1006, reason: "the transport stopped") }
        live = [:]
        let (unstarted, rest) = lock.withLock { () -> ([LwsConnection], [UnownedJob]) in
            state = .stopped
            defer { self.connects = []; self.kicked = []; self.jobs = []; timers = [] }
            return (self.connects, self.jobs)
        }
        for connection in unstarted { connection.finish(code: 1006, reason: "the transport stopped") }
        for job in rest { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// Starts `connection` on the context (service thread).
    private func begin(_ connection: LwsConnection, _ context: OpaquePointer) {
        if connection.closeAsked {
            connection.finish(code: 1000, reason: "closed before connecting")
            return
        }
        nextConnection += 1
        let id = nextConnection
        live[id] = connection
        connection.id = id
        var connect = lws_client_connect_info()
        connect.context = context
        connect.address = UnsafePointer(connection.hostC)
        connect.port = Int32(connection.port)
        connect.path = UnsafePointer(connection.pathC)
        connect.host = UnsafePointer(connection.hostHeaderC)
        connect.protocol = UnsafePointer(protocolName)
        // A number, never a pointer: a late callback of a finished connection finds nothing.
        connect.opaque_user_data = UnsafeMutableRawPointer(bitPattern: id)
        let wsi = lws_client_connect_via_info(&connect)
        if let wsi, !connection.finished {
            connection.wsi = wsi
        } else if wsi == nil {
            connection.finish(code: 1006, reason: "cannot start a connection to \(String(cString: connection.hostC)):\(connection.port)")
        }
    }

    /// The live connection numbered `id` (service thread).
    func connection(_ id: Int) -> LwsConnection? { live[id] }

    /// Forgets a finished connection (service thread).
    func forget(_ id: Int) { live.removeValue(forKey: id) }

    static func owning(_ context: OpaquePointer?) -> LwsLoop? {
        guard let context, let raw = lws_context_user(context) else { return nil }
        return Unmanaged<LwsLoop>.fromOpaque(raw).takeUnretainedValue()
    }
}

/// A timer of an `LwsLoop`.
struct LwsTimer: TransportTimer {
    let loop: LwsLoop
    let id: Int

    func cancel() { loop.cancel(timer: id) }
}

/// One lws client connection, serviced by its transport's loop.
final class LwsConnection: WebSocketConnection, @unchecked Sendable {
    private let loop: LwsLoop
    private let events: @Sendable (TransportEvent) -> Void
    let hostC: UnsafeMutablePointer<CChar>
    let hostHeaderC: UnsafeMutablePointer<CChar>
    let pathC: UnsafeMutablePointer<CChar>
    let port: Int
    private let pre = tandem_lws_pre()
    // Shared with other threads: only under `lock`.
    private let lock = NSLock()
    private var outbox: [[UInt8]] = []
    private var closing = false
    // The service thread's own.
    var id = 0
    var wsi: OpaquePointer?
    private(set) var finished = false
    private var established = false
    private var incoming: [UInt8] = []
    private var closeCode = 1006
    private var closeReason = ""

    init(loop: LwsLoop, host: String, port: Int, path: String, events: @escaping @Sendable (TransportEvent) -> Void) {
        self.loop = loop
        self.events = events
        self.port = port
        hostC = strdup(host)
        hostHeaderC = strdup(port == 80 ? host : "\(host):\(port)")
        pathC = strdup(path)
    }

    deinit {
        free(hostC); free(hostHeaderC); free(pathC)
    }

    func send(_ text: [UInt8]) {
        lock.withLock { outbox.append(text) }
        loop.kick(self)
    }

    func close() {
        lock.withLock { closing = true }
        loop.kick(self)
    }

    var closeAsked: Bool { lock.withLock { closing } }

    // MARK: The service thread

    /// Frames were queued or a close was asked for.
    func serviceKick() {
        guard let wsi, !finished else { return }
        if established {
            lws_callback_on_writable(wsi)
        } else if closeAsked {
            // Still connecting: drop it (lws reports the end).
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
        // Otherwise the frames go once established.
    }

    /// The loop is stopping: close as if asked.
    func closeFromLoop() {
        lock.withLock { closing = true }
        serviceKick()
    }

    /// Reports the end once and lets the loop forget the connection.
    func finish(code: Int, reason: String) {
        guard !finished else { return }
        finished = true
        wsi = nil
        loop.forget(id)
        events(.closed(code: code, reason: reason))
    }

    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard !finished else { return 0 }
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            established = true
            // Frames or a close asked for while connecting: their kick found it not established.
            if lock.withLock({ closing || !outbox.isEmpty }) { lws_callback_on_writable(wsi) }
            events(.opened)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            if let input { incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
            if lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 {
                let message = incoming
                incoming.removeAll(keepingCapacity: true)
                events(.text(message))
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            let (next, more, close) = lock.withLock { () -> ([UInt8]?, Bool, Bool) in
                if closing { return (nil, false, true) }
                let next = outbox.isEmpty ? nil : outbox.removeFirst()
                return (next, !outbox.isEmpty, false)
            }
            if close {
                closeCode = 1000
                _ = tandem_write_close(wsi, 1000, "bye", 3)
                return -1
            }
            if let next {
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pre + next.count)
                defer { buffer.deallocate() }
                next.withUnsafeBufferPointer { (buffer + pre).update(from: $0.baseAddress!, count: next.count) }
                if tandem_write_text(wsi, buffer, next.count) < 0 { return -1 }
            }
            if more { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, length >= 2 {
                let payload = UnsafeRawBufferPointer(start: input, count: length)
                closeCode = Int(payload[0]) << 8 | Int(payload[1])
                closeReason = String(decoding: payload.dropFirst(2), as: UTF8.self)
            }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
            finish(code: 1006, reason: why)
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_CLOSED_CLIENT_HTTP, LWS_CALLBACK_WSI_DESTROY:
            finish(code: closeCode, reason: closeReason)
        default:
            break
        }
        return 0
    }
}

/// The one lws callback: finds the connection by the number in the wsi's opaque user data.
private func lwsClientCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                               _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let loop = LwsLoop.owning(lws_get_context(wsi)),
          let number = lws_get_opaque_user_data(wsi),
          let connection = loop.connection(Int(bitPattern: number)) else { return 0 }
    return connection.handle(wsi, reason, input, length)
}
#endif
