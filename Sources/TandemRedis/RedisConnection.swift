/// A Redis connection for commands on the server's libuv loop. Not Sendable: every
/// method and every callback runs on the loop's thread.
///
/// It reconnects by itself (50 ms doubling to 1 s) until `stop()`. Replies:
/// - while `.ready`, each command's `reply` runs once with Redis' answer, or with
///   `.error("connection lost: <reason>")` when the connection drops first;
/// - while `.connecting` (from `start()` to the first outcome), commands wait and go out
///   once ready, or get `.error("redis unavailable: <reason>")` if the attempt fails;
/// - while `.down`, `reply` gets `.error("redis unavailable: <reason>")` on a later turn of
///   the loop, never inside `send`;
/// - `stop()` gives every pending reply `.error("connection closed")` before it returns.
///
/// Timeouts: connecting and the handshake (AUTH, SELECT, PING) get 1 s together. Every reply
/// gets `commandTimeoutMs` (1 s unless set before `start()`): when the oldest reply owed is
/// later than that — Redis stalled (a long script, SIGSTOP), the link cut off, a slow proxy —
/// the connection is dropped, every pending reply gets `connection lost: no reply for … ms`,
/// and reconnecting starts. An idle dead peer is noticed by TCP keepalive (5 s, every 2 s,
/// 3 times) and TCP_USER_TIMEOUT (10 s).
///
/// Host names are resolved on libuv's thread pool, so a slow DNS never blocks the loop.
///
/// From `start()` until `stop()` (or until the last reference goes) it stays alive by itself.
public final class RedisConnection {
    public enum State: Equatable, Sendable {
        case connecting
        case ready
        /// Why it is down; reconnect attempts go on (except after stop()).
        case down(String)
    }

    public let url: RedisURL
    public let name: String
    /// Every change of `state`, on the loop thread.
    public var onState: ((State) -> Void)?
    public var state: State { link.state }
    /// How long a reply may take before the connection is dropped (0: no limit). Set before `start()`.
    public var commandTimeoutMs: UInt64 {
        get { link.commandTimeoutMs }
        set { link.commandTimeoutMs = newValue }
    }

    /// How long (ms) the oldest reply still owed has been waited for (0: none owed).
    public var stalledMs: UInt64 { link.oldestOwedAge }

    private let link: RedisLink
    private var waiting: [([[UInt8]], ((RedisReply) -> Void)?)] = []

    public init(url: RedisURL, loop: UnsafeMutableRawPointer /* uv_loop_t* */, name: String) {
        self.url = url
        self.name = name
        link = RedisLink(url: url, loop: loop, name: name)
        link.onState = { [weak self] state in self?.onState?(state) }
        link.onReady = { [weak self] in self?.flushWaiting() }
        link.onDown = { [weak self] reason in self?.failWaiting(reason) }
    }

    deinit {
        link.stop()
    }

    /// Connects; AUTH and SELECT when the URL asks; then `.ready`. Once only: no restart after `stop()`.
    public func start() {
        link.start()
    }

    /// Disconnects; no reconnect. Pending replies get `.error("connection closed")`.
    public func stop() {
        link.stop()
    }

    public func send(_ args: [[UInt8]], reply: ((RedisReply) -> Void)? = nil) {
        switch link.state {
        case .ready:
            if !link.command(args, reply: reply), let reply {
                link.runLater { reply(.error("redis unavailable: the command could not be queued")) }
            }
        case .connecting:
            waiting.append((args, reply))
        case let .down(reason):
            if let reply {
                link.runLater { reply(.error("redis unavailable: \(reason)")) }
            }
        }
    }

    public func send(_ args: [String], reply: ((RedisReply) -> Void)? = nil) {
        send(args.map { Array($0.utf8) }, reply: reply)
    }

    /// EVALSHA; on NOSCRIPT (Redis restarted or flushed its scripts) EVAL once, which also caches it.
    public func eval(_ script: RedisScript, keys: [[UInt8]], args: [[UInt8]], reply: ((RedisReply) -> Void)?) {
        let tail = [Array(String(keys.count).utf8)] + keys + args
        send([Array("EVALSHA".utf8), Array(script.sha1.utf8)] + tail) { [weak self] answer in
            if case let .error(message) = answer, message.hasPrefix("NOSCRIPT"), let self {
                self.send([Array("EVAL".utf8), Array(script.source.utf8)] + tail, reply: reply)
            } else {
                reply?(answer)
            }
        }
    }

    private func flushWaiting() {
        let pending = waiting
        waiting = []
        for (args, reply) in pending {
            if !link.command(args, reply: reply), let reply {
                reply(.error("redis unavailable: the command could not be queued"))
            }
        }
    }

    private func failWaiting(_ reason: String) {
        let pending = waiting
        waiting = []
        for (_, reply) in pending {
            reply?(.error(reason == "connection closed" ? reason : "redis unavailable: \(reason)"))
        }
    }
}
