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
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        guard let made = redisConnectWithTimeout(url.host, Int32(url.port), tv) else {
            throw RedisError("cannot allocate a connection to \(url)")
        }
        if made.pointee.err != 0 {
            let reason = Self.errstr(made)
            redisFree(made)
            throw RedisError("cannot connect to \(url.host):\(url.port): \(reason)")
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
    }

    /// One command and its reply (an error reply is returned, not thrown);
    /// throws when the connection failed, after one attempt to reconnect.
    public func command(_ args: [[UInt8]]) throws(RedisError) -> RedisReply {
        if context == nil { try connect() }
        do {
            return try raw(args)
        } catch {
            try connect()
            return try raw(args)
        }
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
            throw RedisError("redis \(url.host):\(url.port): \(reason)")
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
