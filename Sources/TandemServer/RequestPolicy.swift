/// Whether a request may be served, judged from its `Host` and `Origin`
/// headers alone (docs/security.md, "Origins and hosts"); auth on or off.
///
/// - `Host` must name this server, which defeats DNS rebinding (a foreign
///   name resolving to 127.0.0.1): a loopback name (`localhost`, `127.0.0.1`,
///   `[::1]`, any port) when the server is bound to loopback or the peer is a
///   loopback address (a proxy on the same machine, an operator's curl), or
///   one of `--public-host`. A server bound to a non-loopback address with no
///   `--public-host` cannot know its names and takes any `Host` (warned at start).
/// - `Origin`, on a WebSocket upgrade or a state-changing request, must be the
///   server's own (scheme, host and port of the request's `Host`; `https`
///   with TLS) or one of `--allow-origin` (`*`: any). A request without
///   `Origin` is a program, not a page, and passes.
///
/// A pure value: `ServerConfig` in, verdicts out; Server+Origins.swift reads
/// the headers and writes the answer.
struct RequestPolicy: Sendable {
    /// `http` or `https`: the scheme of the server's own origin.
    let scheme: String
    /// Whether the listening address is a loopback one.
    let boundToLoopback: Bool
    /// `--public-host`, parsed.
    let publicHosts: [HostHeader]
    /// `--allow-origin`, parsed (`*` excluded).
    let allowedOrigins: Set<WebOrigin>
    /// Whether `--allow-origin '*'` was given.
    let anyOrigin: Bool

    init(access: AccessSettings, bindAddress: String, tls: Bool) {
        scheme = tls ? "https" : "http"
        boundToLoopback = Self.isLoopbackAddress(bindAddress)
        publicHosts = access.publicHosts.compactMap(HostHeader.init(parsing:))
        allowedOrigins = Set(access.allowedOrigins.compactMap(WebOrigin.init(parsing:)))
        anyOrigin = access.allowedOrigins.contains("*")
    }

    /// A verdict: pass, or the status and message of the refusal.
    enum Verdict: Equatable, Sendable {
        case pass
        /// 400: no `Host` on HTTP/1.1, or one that is not a host.
        case badRequest(String)
        /// 421 Misdirected Request: the `Host` names another server.
        case misdirected(String)
        /// 403: the `Origin` is foreign.
        case forbidden(String)

        /// The HTTP status of a refusal (0 for `pass`).
        var status: Int {
            switch self {
            case .pass: 0
            case .badRequest: 400
            case .misdirected: 421
            case .forbidden: 403
            }
        }

        /// The refusal's code, as in the JSON answer.
        var code: String {
            switch self {
            case .pass: ""
            case .badRequest: "bad_host"
            case .misdirected: "misdirected"
            case .forbidden: "foreign_origin"
            }
        }

        /// What the refusal says.
        var message: String {
            switch self {
            case .pass: ""
            case let .badRequest(m), let .misdirected(m), let .forbidden(m): m
            }
        }
    }

    /// The verdict on one request. `host` and `origin` are the header values
    /// (`nil` when absent); `checksOrigin` for upgrades and POST, PUT, DELETE;
    /// `http11` when the request line said HTTP/1.1 (Host is required there).
    func judge(host: String?, origin: String?, checksOrigin: Bool, peerIsLoopback: Bool, http11: Bool) -> Verdict {
        var named: HostHeader?
        if let host {
            guard let parsed = HostHeader(parsing: host) else {
                return .badRequest("the Host header '\(Self.printable(host))' is not a host name")
            }
            guard admits(parsed, peerIsLoopback: peerIsLoopback) else {
                return .misdirected("this server does not answer to the name '\(parsed.name)'"
                    + " (the operator can declare it with --public-host \(parsed.name))")
            }
            named = parsed
        } else if http11 {
            return .badRequest("HTTP/1.1 requests need a Host header")
        }
        guard checksOrigin, let origin else { return .pass }
        if anyOrigin { return .pass }
        if let parsed = WebOrigin(parsing: origin) {
            if let named, isOwn(parsed, host: named) { return .pass }
            if allowedOrigins.contains(parsed) { return .pass }
        }
        return .forbidden("the origin '\(Self.printable(origin))' may not use this server"
            + " (the operator can allow it with --allow-origin ORIGIN)")
    }

    /// Whether `origin` is the server's own for a request whose `Host` was
    /// `host`: this server's scheme, and the host's name and port (the
    /// scheme's default port when it names none).
    func isOwn(_ origin: WebOrigin, host: HostHeader) -> Bool {
        origin == WebOrigin(scheme: scheme, host: host.name, port: host.port ?? WebOrigin.defaultPort(scheme))
    }

    /// Whether `host` names this server (see the type's comment).
    func admits(_ host: HostHeader, peerIsLoopback: Bool) -> Bool {
        if host.isLoopbackName && (boundToLoopback || peerIsLoopback) { return true }
        if publicHosts.contains(where: { $0.name == host.name && ($0.port == nil || $0.port == host.port) }) { return true }
        return !boundToLoopback && publicHosts.isEmpty
    }

    /// Whether a listening address is a loopback one (`--host`).
    static func isLoopbackAddress(_ address: String) -> Bool {
        let a = address.lowercased()
        return a == "localhost" || a == "::1" || a == "[::1]" || a.hasPrefix("127.")
    }

    /// `text` cut to 100 characters, control characters replaced: for messages
    /// that quote a header back.
    static func printable(_ text: String) -> String {
        String(text.prefix(100).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}

/// A `Host` header (or a `--public-host` name): a name and an optional port,
/// lowercased, without a trailing dot.
struct HostHeader: Hashable, Sendable {
    /// `example.com`, `127.0.0.1` or `[::1]` (IPv6 in brackets, as in URLs).
    let name: String
    /// The port, when one was given.
    let port: Int?

    /// `nil` unless `text` is `name` or `name:port` with a name of letters,
    /// digits, `-`, `.` and `_`, or an IPv6 literal in brackets.
    init?(parsing text: String) {
        var rest = Substring(text.trimmingSpaces().lowercased())
        var name: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            name = rest[...close]
            rest = rest[rest.index(after: close)...]
            guard name.count > 2, name.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            let colon = rest.firstIndex(of: ":") ?? rest.endIndex
            name = rest[..<colon]
            rest = rest[colon...]
            if name.hasSuffix(".") { name = name.dropLast() }
            guard !name.isEmpty, name.count <= 253,
                  name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") })
            else { return nil }
        }
        if rest.isEmpty {
            port = nil
        } else {
            let digits = rest.dropFirst()
            guard rest.first == ":", (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let p = Int(digits), p <= 65535 else { return nil }
            port = p
        }
        self.name = String(name)
    }

    /// `localhost`, `[::1]` or an address in 127.0.0.0/8.
    var isLoopbackName: Bool {
        name == "localhost" || name == "[::1]" || (name.hasPrefix("127.") && name.allSatisfy { $0.isNumber || $0 == "." })
    }
}

/// A web origin: scheme, host and port (RFC 6454), the port made explicit.
public struct WebOrigin: Hashable, Sendable {
    public let scheme: String
    public let host: String
    public let port: Int

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// `nil` unless `text` is `http://` or `https://` followed by a host and an
    /// optional port, with nothing after (a trailing `/` is tolerated).
    /// `null` (an opaque origin) is not an origin one can allow.
    public init?(parsing text: String) {
        var rest = text.trimmingSpaces().lowercased()
        if rest.hasSuffix("/") { rest.removeLast() }
        let scheme: String
        if rest.hasPrefix("http://") {
            scheme = "http"
        } else if rest.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        rest.removeFirst(scheme.count + 3)
        guard let host = HostHeader(parsing: rest) else { return nil }
        self.scheme = scheme
        self.host = host.name
        port = host.port ?? Self.defaultPort(scheme)
    }

    /// 443 for `https`, 80 otherwise.
    static func defaultPort(_ scheme: String) -> Int {
        scheme == "https" ? 443 : 80
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (header values).
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
