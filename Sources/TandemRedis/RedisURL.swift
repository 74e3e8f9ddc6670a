/// Why a Redis URL was refused; the description names what is wrong.
public enum RedisURLError: Error, Sendable, Hashable, CustomStringConvertible {
    case scheme(String)
    case userName(String)
    case password(String)
    case host(String)
    case port(String)
    case database(String)
    case trailing(String)

    public var description: String {
        switch self {
        case let .scheme(detail): "bad Redis URL scheme: \(detail)"
        case let .userName(detail): "bad Redis URL user: \(detail)"
        case let .password(detail): "bad Redis URL password: \(detail)"
        case let .host(detail): "bad Redis URL host: \(detail)"
        case let .port(detail): "bad Redis URL port: \(detail)"
        case let .database(detail): "bad Redis URL database: \(detail)"
        case let .trailing(detail): "bad Redis URL: \(detail)"
        }
    }
}

/// Where Redis is: `redis://[:password@]host[:port][/db]`.
///
/// The port defaults to 6379 and the database to 0. The password may be
/// percent-encoded (`%40` for `@`); an IPv6 host goes in brackets (`[::1]`).
/// Redis 6 ACL user names, TLS (`rediss://`), Unix sockets and query options
/// are refused with a message that says so.
///
/// With a `route` (RedisRoute.swift), connections go where the route says (with
/// Sentinel: the primary it names) and `host` and `port` are not used; the URL
/// then gives only the password and the database.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var db: Int
    public var password: String?
    /// Where connections go instead of `host:port` (compared by identity).
    public var route: RedisRoute?

    public init(host: String, port: Int = 6379, db: Int = 0, password: String? = nil) {
        self.host = host
        self.port = port
        self.db = db
        self.password = password
    }

    public static func == (a: RedisURL, b: RedisURL) -> Bool {
        a.host == b.host && a.port == b.port && a.db == b.db && a.password == b.password && a.route === b.route
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(db)
        hasher.combine(password)
        hasher.combine(route.map(ObjectIdentifier.init))
    }

    /// `text` may leave the host out (`redis://:password@/2`, `redis:///2`) when
    /// `hostOptional`: with Sentinel the URL gives only the password and the database.
    public init(parsing text: String, hostOptional: Bool) throws(RedisURLError) {
        if hostOptional, let rest = Self.hostless(text) {
            try self.init(parsing: "redis://\(rest.auth)placeholder\(rest.path)")
            host = ""
            port = 0
            return
        }
        try self.init(parsing: text)
    }

    /// `redis://[:pw@]` directly followed by `/db` or the end: the auth part and the path.
    private static func hostless(_ text: String) -> (auth: Substring, path: Substring)? {
        guard text.lowercased().hasPrefix("redis://") else { return nil }
        let rest = text.dropFirst("redis://".count)
        let hostStart = rest.lastIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex
        let auth = rest[..<hostStart]
        let after = rest[hostStart...]
        guard after.isEmpty || after.hasPrefix("/") else { return nil }
        return (auth, after)
    }

    public init(parsing text: String) throws(RedisURLError) {
        let prefix = "redis://"
        guard text.lowercased().hasPrefix(prefix) else {
            if text.lowercased().hasPrefix("rediss://") {
                throw .scheme("rediss:// (TLS) is not supported, use redis://")
            }
            if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") {
                throw .scheme("'\(text[..<colon])://' is not redis://")
            }
            throw .scheme("'\(text)' does not start with redis://")
        }
        var rest = Substring(text.dropFirst(prefix.count))
        if let bad = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            throw .trailing("query or fragment '\(rest[bad...])' is not supported")
        }

        // [:password@]
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = userinfo.firstIndex(of: ":") else {
                throw .password("'\(userinfo)@' has no ':' before the password (redis://:password@host)")
            }
            if colon != userinfo.startIndex {
                throw .userName("user names are not supported ('\(userinfo[..<colon])'), use redis://:password@host")
            }
            let encoded = userinfo[userinfo.index(after: colon)...]
            guard !encoded.isEmpty else { throw .password("empty after ':'") }
            password = try Self.percentDecoded(encoded)
        }

        // host[:port]
        let authority: Substring
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .host("'\(authority)' has no closing ']'")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .host("unexpected '\(after)' after ']'") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .host("'[\(host)]' is not an IPv6 address")
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty else { throw .host("missing (redis://host[:port][/db])") }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }) else {
                throw .host("'\(host)' has a character a host name cannot have")
            }
        }

        var port = 6379
        if let portText {
            guard !portText.isEmpty else { throw .port("empty after ':'") }
            guard portText.allSatisfy(\.isASCII), let value = Int(portText), (1...65535).contains(value) else {
                throw .port("'\(portText)' is not a number from 1 to 65535")
            }
            port = value
        }

        var db = 0
        if !path.isEmpty {
            guard path.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(path) else {
                throw .database("'\(path)' is not a database number (redis://host/0)")
            }
            db = value
        }
        self.init(host: String(host), port: port, db: db, password: password)
    }

    /// The URL, the password shown as `***`. With Sentinel:
    /// `redis-sentinel://[:***@]SENTINEL,SENTINEL…/MASTER/DB`.
    public var description: String {
        let auth = password == nil ? "" : ":***@"
        if let route, case let .sentinel(master, sentinels) = route.kind {
            return "redis-sentinel://\(auth)\(sentinels.map(\.description).joined(separator: ","))/\(master)/\(db)"
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(auth)\(shownHost):\(port)/\(db)"
    }

    private static func percentDecoded(_ text: Substring) throws(RedisURLError) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard utf8.count >= 2,
                  let high = hexValue(utf8[utf8.startIndex]),
                  let low = hexValue(utf8[utf8.startIndex + 1]) else {
                throw .password("a '%' not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
