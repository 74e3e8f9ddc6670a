/// Cross-origin reads for pages of an `--allow-origin` origin (CORS): what
/// lets a page elsewhere load `/embed.js` and its modules, and read the API
/// (docs/embedding.md, docs/security.md "Origins and hosts").
///
/// - A request whose `Origin` is allowed and not the server's own gets
///   `Access-Control-Allow-Origin` with that origin (`*` with
///   `--allow-origin '*'`). No credentials are involved: tokens travel in
///   `Authorization` or the WebSocket, never in cookies.
/// - Every answer of a server that allows another origin carries
///   `Vary: Origin`, so that a cache never hands one origin's answer to another.
/// - There are no preflights (`OPTIONS` is refused as before): a page of
///   another origin changes rooms through the WebSocket, where the origin is
///   checked at the upgrade; programs, which send no `Origin`, use the API.
extension RequestPolicy {
    /// Whether any origin besides the server's own is allowed.
    var allowsOtherOrigins: Bool { anyOrigin || !allowedOrigins.isEmpty }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`
    /// (its header) to this server named `host`, or `nil` when it gets none:
    /// no origin, the server's own, or one not allowed.
    func sharedOrigin(_ origin: String?, host: String?) -> String? {
        guard let origin, let parsed = WebOrigin(parsing: origin) else { return nil }
        if let named = host.flatMap(HostHeader.init(parsing:)), isOwn(parsed, host: named) { return nil }
        if anyOrigin { return "*" }
        return allowedOrigins.contains(parsed) ? origin : nil
    }
}

extension Server {
    /// The CORS headers of `exchange`'s answer (see above).
    func crossOriginHeaders(_ exchange: HTTPExchange) -> [(String, String)] {
        guard requestPolicy.allowsOtherOrigins else { return [] }
        guard let allowed = requestPolicy.sharedOrigin(exchange.origin, host: exchange.host) else { return [("Vary", "Origin")] }
        return [("Access-Control-Allow-Origin", allowed), ("Vary", "Origin")]
    }
}
