/// The headers on every response the server writes, files and API alike
/// (docs/security.md, "HTTP hardening").
///
/// - `Content-Security-Policy`: scripts, styles, images and connections from
///   the page's own origin only (plus `data:` images: the favicon is inline),
///   WebSockets to the page's own host (`'self'` covers ws: only in recent
///   browsers, so the ws and wss origins are named), no plugins, no `<base>`,
///   framed only by the same origin (clickjacking).
/// - `X-Content-Type-Options: nosniff`: a JSON or text answer is never run as a script.
/// - `Referrer-Policy: same-origin`: invite links with `?token=` do not leak to other sites.
/// - `Cache-Control: no-store` on every `/api/…` answer (`ResponseHeaders.api`):
///   an answer may hold what only a token's bearer may read (a room's state,
///   its history, presets), and no answer of the API is worth keeping — every
///   one is the state of now. Every answer rather than only those to a
///   request with a token: with auth off the same answers are as live, and a
///   shared cache must never serve one person's answer to another.
enum ResponseHeaders {
    /// The cache header of every API answer.
    static let api = ("Cache-Control", "no-store")

    /// The security headers for a request whose `Host` was `host` (already
    /// checked by the policy; `nil` when absent).
    static func security(host: String?) -> [(String, String)] {
        var connect = "'self'"
        if let host = host.map({ $0.trimmingSpaces().lowercased() }), HostHeader(parsing: host) != nil {
            connect += " ws://\(host) wss://\(host)"
        }
        let policy = "default-src 'self'; img-src 'self' data:; connect-src \(connect); object-src 'none'; "
            + "base-uri 'none'; frame-ancestors 'self'; form-action 'self'"
        return [
            ("Content-Security-Policy", policy),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "same-origin"),
        ]
    }
}

extension Server {
    /// The security headers for `exchange`'s answer.
    func responseHeaders(_ exchange: HTTPExchange) -> [(String, String)] {
        let headers = ResponseHeaders.security(host: exchange.host) + crossOriginHeaders(exchange) // CrossOrigin.swift
        guard exchange.path == "/api" || exchange.path.hasPrefix("/api/") else { return headers }
        return headers + [ResponseHeaders.api]
    }
}
