#if canImport(Glibc)
import Glibc
#endif

/// Redis Sentinel: which server is the primary of a master name, kept current on
/// the loop (`--redis-sentinel`, docs/scale-out.md).
///
/// - At start, `lookup` asks each Sentinel in turn (a blocking call with a short
///   timeout, before the loop runs) and the route gets the primary.
/// - Then `start()` subscribes on every Sentinel to `+switch-master` (and
///   `-failover-abort-*`); a switch of this master moves the route at once, and
///   every connection of the route that is elsewhere is dropped and connects to
///   the new primary (whose `ROLE` it checks before it is ready).
/// - The Sentinels are asked again (`SENTINEL get-master-addr-by-name`, one at a
///   time, each given `queryTimeoutMs`) when a connection doubts the primary (it
///   failed, `ROLE` said replica, a write answered `READONLY`), when a Sentinel
///   subscription is (re)made (a switch may have been missed), and every 10 s.
///   Nothing here blocks the loop.
///
/// Loop thread only.
public final class RedisSentinel {
    public typealias Address = RedisRoute.Address

    public let route: RedisRoute
    public let master: String
    public let sentinels: [Address]
    public let name: String

    /// The primary changed: the former one (`nil` the first time) and how it was learnt.
    public var onPrimary: ((_ old: Address?, _ new: Address, _ how: String) -> Void)?
    /// No Sentinel answered a lookup (each one's reason, joined).
    public var onLookupFailed: ((String) -> Void)?
    /// Primaries changed since the start (each failover followed).
    public private(set) var failovers = 0
    /// Lookups made and those that got no answer from any Sentinel.
    public private(set) var lookups = 0
    public private(set) var lookupFailures = 0

    public static let queryTimeoutMs: UInt64 = 1000
    static let refreshEveryMs: UInt64 = 10_000
    static let minGapMs: UInt64 = 500

    private let loop: UnsafeMutableRawPointer
    private var subscribers: [RedisSubscriber] = []
    private var periodic: RedisTimer?
    private var later: RedisTimer?
    private var deadline: RedisTimer?
    private var query: RedisConnection?
    private var asking = false
    private var again: String?
    private var lastAskedMs: UInt64 = 0
    private var attempt = 0
    private var preferred = 0
    private var retryMs: UInt64 = 1000
    private var started = false

    public init(route: RedisRoute, loop: UnsafeMutableRawPointer /* uv_loop_t* */, name: String) {
        guard case let .sentinel(master, sentinels) = route.kind else {
            preconditionFailure("RedisSentinel needs a Sentinel route")
        }
        self.route = route
        self.master = master
        self.sentinels = sentinels
        self.loop = loop
        self.name = name
    }

    deinit {
        stop()
    }

    // MARK: Pure parts

    /// `HOST:PORT[,HOST:PORT…]` (an IPv6 host in brackets; the port defaults to 26379), or why not.
    public static func parseAddresses(_ text: String) -> Result<[Address], RedisURLError> {
        var out: [Address] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = item.trimmingSpaces
            guard !part.isEmpty else { return .failure(.host("an empty Sentinel address in '\(text)'")) }
            do {
                let url = try RedisURL(parsing: "redis://\(part.contains(":") || part.hasPrefix("[") ? part : part + ":26379")")
                out.append(Address(host: url.host, port: url.port))
            } catch {
                return .failure(error)
            }
        }
        guard Set(out).count == out.count else { return .failure(.host("a Sentinel is listed twice in '\(text)'")) }
        return .success(out)
    }

    /// A master name as Sentinel takes it: 1 to 64 letters, digits, `.`, `-` or `_`.
    public static func isValidMasterName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// The answer to `SENTINEL get-master-addr-by-name`: `[ip, port]`, else why not.
    public static func primary(from reply: RedisReply) -> Result<Address, RedisError> {
        switch reply {
        case let .array(parts) where parts.count == 2:
            guard let host = parts[0].string, !host.isEmpty, let port = parts[1].string.flatMap({ Int($0) }) ?? parts[1].int,
                  (1...65535).contains(port) else {
                return .failure(RedisError("an unreadable answer: \(reply)"))
            }
            return .success(Address(host: host, port: port))
        case .null:
            return .failure(RedisError("it does not know the master"))
        case let .error(message):
            return .failure(RedisError(message))
        default:
            return .failure(RedisError("an unreadable answer: \(reply)"))
        }
    }

    /// A `+switch-master` message: `NAME OLD-IP OLD-PORT NEW-IP NEW-PORT`.
    public static func switchMaster(_ payload: String) -> (master: String, old: Address, new: Address)? {
        let parts = payload.split(separator: " ").map(String.init)
        guard parts.count == 5, let oldPort = Int(parts[2]), let newPort = Int(parts[4]) else { return nil }
        return (parts[0], Address(host: parts[1], port: oldPort), Address(host: parts[3], port: newPort))
    }

    // MARK: At start (blocking)

    /// Asks each Sentinel in turn (each at most `timeout` seconds) for the primary of the
    /// route's master; the first answer is the route's primary. Before the loop runs only.
    @discardableResult
    public static func lookup(_ route: RedisRoute, timeout: Double = 1) throws(RedisError) -> (primary: Address, from: Address) {
        guard case let .sentinel(master, sentinels) = route.kind else { throw RedisError("not a Sentinel route") }
        var reasons: [String] = []
        for sentinel in sentinels {
            do {
                let connection = try RedisBlocking(url: RedisURL(host: sentinel.host, port: sentinel.port), timeout: timeout)
                let reply = try connection.command(["SENTINEL", "get-master-addr-by-name", master].map { Array($0.utf8) })
                switch primary(from: reply) {
                case let .success(address):
                    route.setPrimary(address, reason: "Sentinel \(sentinel)")
                    return (address, sentinel)
                case let .failure(error):
                    reasons.append("\(sentinel): \(error)")
                }
            } catch {
                reasons.append("\(sentinel): \(error)")
            }
        }
        let reason = "no Sentinel named a primary for '\(master)' (\(reasons.joined(separator: "; ")))"
        route.setPrimary(nil, reason: reason)
        throw RedisError(reason)
    }

    // MARK: On the loop

    /// Subscribes on every Sentinel and starts following the master. Once only.
    public func start() {
        guard !started else { return }
        started = true
        route.onDoubt = { [weak self] why in self?.refresh(why) }
        for sentinel in sentinels {
            let subscriber = RedisSubscriber(url: RedisURL(host: sentinel.host, port: sentinel.port), loop: loop,
                                             name: "\(name)-sentinel")
            subscriber.onMessage = { [weak self] channel, payload in
                self?.event(String(decoding: channel, as: UTF8.self), String(decoding: payload, as: UTF8.self), from: sentinel)
            }
            subscriber.onState = { [weak self] state in
                if state == .ready { self?.refresh("subscribed on Sentinel \(sentinel)") }
            }
            subscriber.subscribe("+switch-master")
            subscriber.psubscribe("-failover-abort-*")
            subscriber.start()
            subscribers.append(subscriber)
        }
        periodic = RedisTimer(loop: loop) { [weak self] in self?.refresh("every \(Self.refreshEveryMs / 1000) s") }
        periodic?.start(afterMs: Self.refreshEveryMs, everyMs: Self.refreshEveryMs)
        later = RedisTimer(loop: loop) { [weak self] in self?.laterFired() }
        deadline = RedisTimer(loop: loop) { [weak self] in self?.timedOut() }
        if route.primary == nil { refresh("no primary known") }
    }

    public func stop() {
        route.onDoubt = nil
        for subscriber in subscribers { subscriber.stop() }
        subscribers = []
        periodic?.stop()
        later?.stop()
        deadline?.stop()
        attempt += 1
        query?.stop()
        query = nil
        asking = false
    }

    /// Asks the Sentinels for the primary now (or once the lookup under way ends,
    /// or at most every 500 ms).
    public func refresh(_ why: String) {
        guard started else { return }
        if asking {
            again = again ?? why
            return
        }
        let now = Self.monotonicMs()
        let since = now &- lastAskedMs
        if lastAskedMs != 0, since < Self.minGapMs {
            if again == nil { later?.start(afterMs: Self.minGapMs - since) }
            again = again ?? why
            return
        }
        lastAskedMs = now
        asking = true
        lookups += 1
        ask(index: preferred % max(1, sentinels.count), tried: 0, reasons: [], why: why)
    }

    private func laterFired() {
        guard let why = again, !asking else { return }
        again = nil
        refresh(why)
    }

    // One Sentinel: its own connection, `queryTimeoutMs` for the answer.
    private func ask(index: Int, tried: Int, reasons: [String], why: String) {
        guard tried < sentinels.count else { return failed(reasons) }
        attempt += 1
        let current = attempt
        let sentinel = sentinels[index]
        let connection = RedisConnection(url: RedisURL(host: sentinel.host, port: sentinel.port), loop: loop,
                                         name: "\(name)-sentinel-query")
        query = connection
        deadline?.start(afterMs: Self.queryTimeoutMs)
        connection.start()
        connection.send(["SENTINEL", "get-master-addr-by-name", master]) { [weak self] reply in
            guard let self, self.attempt == current else { return }
            self.deadline?.stop()
            self.query = nil
            connection.stop()
            switch Self.primary(from: reply) {
            case let .success(address):
                self.preferred = index
                self.finished()
                self.apply(address, how: "Sentinel \(sentinel): \(why)")
            case let .failure(error):
                self.next(after: index, tried: tried, reasons: reasons + ["\(sentinel): \(error)"], why: why)
            }
        }
        nextStep = { [weak self] in
            guard let self, self.attempt == current else { return }
            self.attempt += 1 // the reply that stop() gives is not this attempt's
            self.query = nil
            connection.stop()
            self.next(after: index, tried: tried, reasons: reasons + ["\(sentinel): no answer within \(Self.queryTimeoutMs) ms"], why: why)
        }
    }

    private var nextStep: (() -> Void)?

    private func timedOut() {
        let step = nextStep
        nextStep = nil
        step?()
    }

    private func next(after index: Int, tried: Int, reasons: [String], why: String) {
        nextStep = nil
        ask(index: (index + 1) % sentinels.count, tried: tried + 1, reasons: reasons, why: why)
    }

    private func finished() {
        nextStep = nil
        asking = false
        retryMs = 1000
        if let why = again {
            again = nil
            refresh(why)
        }
    }

    private func failed(_ reasons: [String]) {
        lookupFailures += 1
        let detail = reasons.joined(separator: "; ")
        // Every Sentinel answered that it does not know the master: there is none to go to.
        if !reasons.isEmpty, reasons.allSatisfy({ $0.hasSuffix("it does not know the master") }) {
            route.setPrimary(nil, reason: "no Sentinel knows '\(master)' (\(detail))")
        }
        onLookupFailed?(detail)
        asking = false
        nextStep = nil
        // Asked again after a pause (1 s doubling to 10 s), or sooner when something else asks.
        again = again ?? "no Sentinel answered"
        later?.start(afterMs: retryMs)
        retryMs = min(retryMs * 2, Self.refreshEveryMs)
    }

    private func apply(_ address: Address, how: String) {
        let old = route.primary
        route.setPrimary(address, reason: how)
        guard old != address else { return }
        if old != nil { failovers += 1 }
        onPrimary?(old, address, how)
    }

    private func event(_ channel: String, _ payload: String, from sentinel: Address) {
        if channel == "+switch-master" {
            guard let change = Self.switchMaster(payload), change.master == master else { return }
            apply(change.new, how: "+switch-master from Sentinel \(sentinel)")
        } else if channel.hasPrefix("-failover-abort"), payload.split(separator: " ").contains(Substring(master)) {
            refresh("\(channel) on Sentinel \(sentinel)")
        }
    }
}

extension RedisSentinel {
    static func monotonicMs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
