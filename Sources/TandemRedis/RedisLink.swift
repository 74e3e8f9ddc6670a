#if canImport(Glibc)
import Glibc
#endif
import CHiredis
import CTandemRedis

/// One Redis connection that keeps itself up: connect (≤ 1 s, with the handshake),
/// AUTH and SELECT when the URL asks, PING, then ready; on a drop or a failed attempt,
/// down and a new attempt after a backoff of 50 ms doubling to 1 s. RedisConnection
/// and RedisSubscriber each drive one. Loop thread only.
///
/// Every reply is waited for at most `commandTimeoutMs` (a command connection's replies
/// come in the order of their commands): the oldest one later than that drops the
/// connection, so that every pending reply fails at once (`connection lost: no reply
/// for … ms`) and the owner knows within a bound, whether the peer died, stalled or was
/// cut off. A subscriber (`tracksReplies` false) is watched end to end by its owner instead.
///
/// From start() until stop() the link retains itself: the C side holds it unretained
/// (the event owner, timer contexts), and hiredis may call back until stop().
final class RedisLink {
    typealias State = RedisConnection.State

    private enum Phase { case idle, connecting, handshaking, ready, waiting, stopped }

    static let connectTimeoutMs: UInt32 = 1000
    static let firstBackoffMs: UInt64 = 50
    static let maxBackoffMs: UInt64 = 1000

    let url: RedisURL
    let name: String
    let loop: UnsafeMutableRawPointer

    private(set) var state: State = .down("not started")
    /// The owner's view: every change of `state`.
    var onState: ((State) -> Void)?
    /// Ready again (after the handshake), just before `state` says so: resend what must be.
    var onReady: (() -> Void)?
    /// The connection or the attempt ended, just before `state` says so.
    var onDown: ((String) -> Void)?

    private var phase = Phase.idle
    private var link: OpaquePointer?
    private var retryTimer: OpaquePointer?
    private var laterTimer: OpaquePointer?
    private var later: [() -> Void] = []
    private var backoffMs = RedisLink.firstBackoffMs
    private var retained: Unmanaged<RedisLink>?
    private var epoch = 0

    /// How long a reply may take (0: for ever). Set before start().
    var commandTimeoutMs: UInt64 = RedisLink.defaultCommandTimeoutMs
    static let defaultCommandTimeoutMs: UInt64 = 1000
    /// Whether replies come back in command order (false on a subscriber, whose
    /// pushes interleave with them): only then are they timed.
    var tracksReplies = true
    /// When each reply still owed was asked for (monotonic ms), oldest first.
    private var owed: [UInt64] = []
    private var owedStart = 0
    private var watchdog: OpaquePointer?

    init(url: RedisURL, loop: UnsafeMutableRawPointer, name: String) {
        self.url = url
        self.loop = loop
        self.name = name
    }

    static func monotonicMs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }

    deinit {
        if let link { tandem_redis_link_free(link, "connection closed") }
        if let retryTimer { tandem_redis_timer_free(retryTimer) }
        if let laterTimer { tandem_redis_timer_free(laterTimer) }
        if let watchdog { tandem_redis_timer_free(watchdog) }
        let pending = later
        later = []
        for work in pending { work() }
    }

    var isReady: Bool { phase == .ready }
    fileprivate var currentEpoch: Int { epoch }
    var isStopped: Bool { phase == .stopped }

    private var opaqueSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: Lifecycle

    func start() {
        guard phase == .idle else { return }
        retained = Unmanaged.passRetained(self)
        link = tandem_redis_link_new(loop, opaqueSelf) { owner, event, reason in
            guard let owner else { return }
            let link = Unmanaged<RedisLink>.fromOpaque(owner).takeUnretainedValue()
            link.linkEvent(event, reason.map { String(cString: $0) } ?? "")
        }
        retryTimer = tandem_redis_timer_new(loop, { ctx in
            guard let ctx else { return }
            Unmanaged<RedisLink>.fromOpaque(ctx).takeUnretainedValue().retry()
        }, opaqueSelf)
        if tracksReplies, commandTimeoutMs > 0 {
            watchdog = tandem_redis_timer_new(loop, { ctx in
                guard let ctx else { return }
                Unmanaged<RedisLink>.fromOpaque(ctx).takeUnretainedValue().checkOwed()
            }, opaqueSelf)
            let every = max(10, min(100, commandTimeoutMs / 4))
            if let watchdog { tandem_redis_timer_start(watchdog, every, every) }
        }
        set(.connecting)
        attempt()
    }

    /// The oldest reply owed is late: the connection is dropped (every pending reply fails).
    private func checkOwed() {
        guard owedStart < owed.count, phase == .ready || phase == .handshaking, let link else { return }
        let waited = Self.monotonicMs() &- owed[owedStart]
        guard waited > commandTimeoutMs else { return }
        tandem_redis_link_drop(link, "no reply for \(waited) ms (timeout \(commandTimeoutMs) ms)")
    }

    /// How long (ms) the oldest reply owed has been waited for (0: none).
    var oldestOwedAge: UInt64 {
        guard owedStart < owed.count else { return 0 }
        return Self.monotonicMs() &- owed[owedStart]
    }

    private func owe() {
        guard tracksReplies else { return }
        owed.append(Self.monotonicMs())
    }

    private func paid() {
        guard tracksReplies, owedStart < owed.count else { return }
        owedStart += 1
        if owedStart == owed.count {
            owed.removeAll(keepingCapacity: true)
            owedStart = 0
        } else if owedStart >= 1024 {
            owed.removeFirst(owedStart)
            owedStart = 0
        }
    }

    /// A new connection (or none): nothing is owed on it.
    private func forgetOwed() {
        owed.removeAll(keepingCapacity: true)
        owedStart = 0
    }

    /// Disconnects for good: pending replies get `.error("connection closed")` before this returns
    /// (or, when called from inside a reply callback, as soon as that callback returns).
    func stop() {
        guard phase != .stopped else { return }
        let wasStarted = phase != .idle
        phase = .stopped
        epoch += 1
        if let retryTimer { tandem_redis_timer_stop(retryTimer) }
        if let watchdog { tandem_redis_timer_stop(watchdog) }
        if let link {
            tandem_redis_link_free(link, "connection closed")
            self.link = nil
        }
        onDown?("connection closed")
        set(.down("connection closed"))
        let pending = later
        later = []
        for work in pending { work() }
        if wasStarted, let retained {
            self.retained = nil
            retained.release()
        }
    }

    private func attempt() {
        guard let link, phase != .stopped else { return }
        phase = .connecting
        epoch += 1
        forgetOwed()
        // The URL's host and port, or where its route says the primary is (RedisRoute.swift).
        guard let target = url.route.map({ $0.target(for: self) }) ?? RedisRoute.Address(host: url.host, port: url.port) else {
            return down("no primary known: \(url.route?.unknownReason ?? "")")
        }
        if tandem_redis_link_connect(link, target.host, Int32(target.port), Self.connectTimeoutMs) != 0 {
            down("cannot start a connection attempt")
        }
    }

    private func retry() {
        guard phase == .waiting else { return }
        attempt()
    }

    /// Ends the connection or the attempt (down with `reason`) and connects again at once,
    /// wherever the route now says (RedisRoute: the primary moved, the delivery probe heard nothing).
    func drop(_ reason: String) {
        guard let link, phase != .idle, phase != .stopped else { return }
        backoffMs = Self.firstBackoffMs
        if phase == .waiting {
            if let retryTimer { tandem_redis_timer_stop(retryTimer) }
            attempt()
        } else {
            tandem_redis_link_drop(link, reason)
        }
    }

    private func linkEvent(_ event: Int32, _ reason: String) {
        guard phase != .stopped else { return }
        switch Int(event) {
        case TANDEM_REDIS_UP:
            handshake()
        default:
            down(reason)
        }
    }

    private func down(_ reason: String) {
        guard phase != .stopped else { return }
        phase = .waiting
        epoch += 1
        onDown?(reason)
        set(.down(reason))
        guard phase == .waiting, let retryTimer else { return }  // stop() from a callback
        tandem_redis_timer_start(retryTimer, backoffMs, 0)
        backoffMs = min(backoffMs * 2, Self.maxBackoffMs)
    }

    // AUTH, SELECT, PING pipelined; ready on PONG. Any error drops the attempt (and retries).
    private func handshake() {
        phase = .handshaking
        let current = epoch
        var steps: [([[UInt8]], String)] = []
        if let password = url.password {
            steps.append(([Array("AUTH".utf8), Array(password.utf8)], "AUTH"))
        }
        if url.db != 0 {
            steps.append(([Array("SELECT".utf8), Array(String(url.db).utf8)], "SELECT \(url.db)"))
        }
        // A Sentinel's primary must say it is one before the link is ready (RedisRoute.swift).
        if url.route?.confirmsPrimary == true { steps.append(([Array("ROLE".utf8)], "ROLE")) }
        steps.append(([Array("PING".utf8)], "PING"))
        for (index, (args, what)) in steps.enumerated() {
            let last = index == steps.count - 1
            let queued = command(args) { [weak self] reply in
                guard let self, self.epoch == current, self.phase == .handshaking else { return }
                if let message = reply.errorMessage {
                    // A NULL reply (the connection ended) comes with the down event anyway.
                    if message.hasPrefix("connection ") { return }
                    if let link = self.link { tandem_redis_link_drop(link, "\(what) failed: \(message)") }
                } else if what == "ROLE", let problem = RedisRoute.notPrimary(reply) {
                    if let link = self.link { tandem_redis_link_drop(link, "ROLE: \(problem)") }
                } else if last {
                    self.ready()
                }
            }
            if !queued {
                if let link { tandem_redis_link_drop(link, "cannot send \(what)") }
                return
            }
        }
    }

    private func ready() {
        guard let link else { return }
        tandem_redis_link_settled(link)
        phase = .ready
        backoffMs = Self.firstBackoffMs
        onReady?()
        if phase == .ready { set(.ready) }
    }

    private func set(_ new: State) {
        guard new != state else { return }
        state = new
        onState?(new)
    }

    // MARK: Commands

    /// Sends through hiredis whatever the phase (the caller checks). `reply` runs exactly
    /// once on the loop thread, unless this returns false (nothing was sent; never called).
    @discardableResult
    func command(_ args: [[UInt8]], reply: ((RedisReply) -> Void)?) -> Bool {
        guard reply != nil || tracksReplies else {
            return send(args, fn: nil, privdata: nil)
        }
        // Every command of a timed link has a callback (a no-op for nil), so that each reply is counted.
        let box = Unmanaged.passRetained(ReplyBox(self, reply ?? { _ in })).toOpaque()
        if send(args, fn: { ac, reply, privdata in RedisLink.replied(ac, reply, privdata) }, privdata: box) {
            owe()
            return true
        }
        Unmanaged<ReplyBox>.fromOpaque(box).release()
        return false
    }

    /// (P)SUBSCRIBE: hiredis calls `RedisLink.pushed` for each message, privdata unused.
    @discardableResult
    func subscribeCommand(_ args: [[UInt8]]) -> Bool {
        send(args, fn: { ac, reply, _ in RedisLink.pushed(ac, reply) }, privdata: nil)
    }

    /// The subscriber's messages (and (un)subscribe confirmations), in order.
    var onPush: ((RedisReply) -> Void)?

    private func send(_ args: [[UInt8]], fn: ReplyFunction?, privdata: UnsafeMutableRawPointer?) -> Bool {
        guard let link, !args.isEmpty else { return false }
        // One buffer for every argument; argv points into it.
        var flat: [UInt8] = []
        flat.reserveCapacity(args.reduce(1) { $0 + $1.count })
        var lengths: [Int] = []
        lengths.reserveCapacity(args.count)
        for arg in args {
            flat.append(contentsOf: arg)
            lengths.append(arg.count)
        }
        flat.append(0)
        return flat.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = []
            argv.reserveCapacity(args.count)
            var offset = 0
            for length in lengths {
                argv.append(base + offset)
                offset += length
            }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    tandem_redis_link_command(link, fn, privdata, Int32(args.count), argvBuffer.baseAddress,
                                              lengthBuffer.baseAddress) == 0
                }
            }
        }
    }

    private static func replied(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                                _ privdata: UnsafeMutableRawPointer?) {
        guard let privdata else { return }
        let box = Unmanaged<ReplyBox>.fromOpaque(privdata).takeRetainedValue()
        if box.epoch == box.link?.epoch { box.link?.paid() }
        if let reply {
            box.handler(RedisReply(reply.assumingMemoryBound(to: redisReply.self)))
        } else {
            let reason = String(cString: tandem_redis_null_reason(ac))
            box.handler(.error(reason == "connection closed" ? reason : "connection lost: \(reason)"))
        }
    }

    private static func pushed(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?) {
        guard let reply, let owner = tandem_redis_context_owner(ac) else { return }
        let link = Unmanaged<RedisLink>.fromOpaque(owner).takeUnretainedValue()
        guard link.phase != .stopped else { return }
        link.onPush?(RedisReply(reply.assumingMemoryBound(to: redisReply.self)))
    }

    // MARK: Later

    /// Runs `work` on a later turn of the loop (never inside the caller).
    func runLater(_ work: @escaping () -> Void) {
        if laterTimer == nil {
            laterTimer = tandem_redis_timer_new(loop, { ctx in
                guard let ctx else { return }
                Unmanaged<RedisLink>.fromOpaque(ctx).takeUnretainedValue().runPending()
            }, opaqueSelf)
        }
        guard let laterTimer else { return }
        if later.isEmpty { tandem_redis_timer_start(laterTimer, 0, 0) }
        later.append(work)
    }

    private func runPending() {
        let pending = later
        later = []
        for work in pending { work() }
    }
}

/// hiredis' redisCallbackFn as a C function pointer.
private typealias ReplyFunction = @convention(c) (UnsafeMutablePointer<redisAsyncContext>?, UnsafeMutableRawPointer?,
                                                  UnsafeMutableRawPointer?) -> Void

/// One command's reply callback, retained from the send until hiredis calls back.
private final class ReplyBox {
    let handler: (RedisReply) -> Void
    /// The link and its connection epoch when sent: a reply counts against what that connection owes.
    weak var link: RedisLink?
    let epoch: Int
    init(_ link: RedisLink, _ handler: @escaping (RedisReply) -> Void) {
        self.link = link
        epoch = link.currentEpoch
        self.handler = handler
    }
}
