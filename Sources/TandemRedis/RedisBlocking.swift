#if canImport(Glibc)
import Glibc
#endif
import CHiredis

/// Why a blocking Redis call failed: it could not connect, or the connection broke.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) {
        self.description = description
    }
}

/// A plain blocking connection, for the rare calls that must answer at once:
/// a server's start, the admin API, history reads. Each call waits for its
/// reply (at most `timeout` seconds); a broken connection is opened again on
/// the next call. Not for the event loop's hot paths: `RedisConnection` is.
///
/// Not `Sendable`: one thread uses it.
public final class RedisBlocking {
    public let url: RedisURL
    private let timeout: Double
    private var context: UnsafeMutablePointer<redisContext>?
    /// Where `context` is connected.
    private var connectedTo: RedisRoute.Address?

    /// Connects (and authenticates, and selects the database) at once.
    public init(url: RedisURL, timeout: Double) throws(RedisError) {
        self.url = url
        self.timeout = timeout
        try connect()
    }

    deinit {
        if let context { redisFree(context) }
    }

    private func connect() throws(RedisError) {
        if let context { redisFree(context) }
        context = nil
        connectedTo = nil
        // The URL's host and port, or the primary its route names now (RedisRoute.swift).
        let target: RedisRoute.Address
        if let route = url.route {
            guard let primary = route.primary else { throw RedisError("no primary known: \(route.unknownReason)") }
            target = primary
        } else {
            target = RedisRoute.Address(host: url.host, port: url.port)
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        guard let made = redisConnectWithTimeout(target.host, Int32(target.port), tv) else {
            throw RedisError("cannot allocate a connection to \(url)")
        }
        if made.pointee.err != 0 {
            let reason = Self.errstr(made)
            redisFree(made)
            url.route?.doubt("store: cannot connect to \(target)")
            throw RedisError("cannot connect to \(target): \(reason)")
        }
        redisSetTimeout(made, tv)
        tv = timeval(tv_sec: 0, tv_usec: 0)
        context = made
        if let password = url.password {
            let reply = try raw(["AUTH", password].map { Array($0.utf8) })
            if case let .error(text) = reply { throw RedisError("AUTH failed: \(text)") }
        }
        if url.db != 0 {
            let reply = try raw(["SELECT", String(url.db)].map { Array($0.utf8) })
            if case let .error(text) = reply { throw RedisError("SELECT \(url.db) failed: \(text)") }
        }
        if url.route?.confirmsPrimary == true, let problem = RedisRoute.notPrimary(try raw([Array("ROLE".utf8)])) {
            if let context { redisFree(context) }
            context = nil
            url.route?.doubt("store: \(target) is \(problem)")
            throw RedisError("\(target): \(problem)")
        }
        connectedTo = target
    }

    /// One command and its reply (an error reply is returned, not thrown);
    /// throws when the connection failed, after one attempt to reconnect.
    ///
    /// With a route: a connection to a former primary is replaced before the call, and
    /// a `READONLY` answer (the server became a replica) makes the route doubt its
    /// primary, and the call is made once more on a new connection.
    public func command(_ args: [[UInt8]]) throws(RedisError) -> RedisReply {
        if context == nil || (url.route.map { $0.primary != connectedTo } ?? false) { try connect() }
        let reply: RedisReply
        do {
            reply = try raw(args)
        } catch {
            try connect()
            return try raw(args)
        }
        if let route = url.route, route.confirmsPrimary, let message = reply.errorMessage, message.hasPrefix("READONLY") {
            route.doubt("store: \(connectedTo.map(\.description) ?? "redis") answered READONLY")
            try connect()
            return try raw(args)
        }
        return reply
    }

    private func raw(_ args: [[UInt8]]) throws(RedisError) -> RedisReply {
        guard let context else { throw RedisError("not connected") }
        var lengths = args.map(\.count)
        let copies: [UnsafeMutablePointer<CChar>] = args.map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBufferPointer { src in
                src.withMemoryRebound(to: CChar.self) { if let base = $0.baseAddress { p.initialize(from: base, count: bytes.count) } }
            }
            return p
        }
        defer { copies.forEach { $0.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        let reply = pointers.withUnsafeMutableBufferPointer { argv in
            lengths.withUnsafeMutableBufferPointer { argvlen in
                redisCommandArgv(context, Int32(args.count), argv.baseAddress, argvlen.baseAddress)
            }
        }
        guard let reply else {
            let reason = Self.errstr(context)
            redisFree(context)
            self.context = nil
            throw RedisError("redis \(connectedTo.map(\.description) ?? url.description): \(reason)")
        }
        defer { freeReplyObject(reply) }
        return RedisReply(reply.assumingMemoryBound(to: redisReply.self))
    }

    private static func errstr(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
