import CHiredis

/// One Redis reply (RESP2), copied out of hiredis' reply tree.
public enum RedisReply: Sendable, Hashable {
    /// A simple string such as `OK` or `PONG`.
    case status(String)
    /// An error reply from Redis (`ERR …`, `NOSCRIPT …`), or this client's own:
    /// `redis unavailable: <reason>` (sent while down), `connection lost: <reason>`
    /// (the connection ended before the reply came), `connection closed` (stop()).
    case error(String)
    case integer(Int)
    /// A bulk string: any bytes.
    case bulk([UInt8])
    /// A null bulk string or null array.
    case null
    case array([RedisReply])

    /// A status or bulk reply as text (bulk bytes decoded as UTF-8, invalid bytes replaced).
    public var string: String? {
        switch self {
        case let .status(text): text
        case let .bulk(bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// An integer reply's value.
    public var int: Int? {
        if case let .integer(value) = self { return value }
        return nil
    }

    /// A bulk reply's bytes.
    public var bytes: [UInt8]? {
        if case let .bulk(bytes) = self { return bytes }
        return nil
    }

    /// An array reply's elements.
    public var elements: [RedisReply]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    /// An array of field, value, field, value… (HGETALL, a stream entry's
    /// fields) as a dictionary; pairs whose field is not text are left out.
    public var fields: [String: [UInt8]] {
        var fields: [String: [UInt8]] = [:]
        let items = elements ?? []
        var i = 0
        while i + 1 < items.count {
            if let key = items[i].string, let value = items[i + 1].bytes { fields[key] = value }
            i += 2
        }
        return fields
    }

    /// Whether this is an error reply (from Redis or from this client).
    public var isError: Bool {
        if case .error = self { return true }
        return false
    }

    /// The error message of an error reply.
    public var errorMessage: String? {
        if case let .error(message) = self { return message }
        return nil
    }

    /// A copy of hiredis' reply; the tree stays hiredis' to free.
    init(_ reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STATUS:
            self = .status(Self.text(r.str, r.len))
        case REDIS_REPLY_ERROR:
            self = .error(Self.text(r.str, r.len))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(r.integer))
        case REDIS_REPLY_STRING:
            self = .bulk(Self.bytes(r.str, r.len))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(r.elements)
            for i in 0..<r.elements {
                if let element = r.element?[i] {
                    elements.append(RedisReply(element))
                } else {
                    elements.append(.null)
                }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func bytes(_ str: UnsafeMutablePointer<CChar>?, _ len: Int) -> [UInt8] {
        guard let str, len > 0 else { return [] }
        return str.withMemoryRebound(to: UInt8.self, capacity: len) { Array(UnsafeBufferPointer(start: $0, count: len)) }
    }

    private static func text(_ str: UnsafeMutablePointer<CChar>?, _ len: Int) -> String {
        String(decoding: bytes(str, len), as: UTF8.self)
    }
}
