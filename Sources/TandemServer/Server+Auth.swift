#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import TandemAuth
import TandemCore
import TandemWire

/// Tokens and roles (docs/security.md, "Tokens and roles"): who may open a
/// WebSocket, refresh its token, and use which part of the HTTP API. Every
/// check with auth on lives here; with auth off (`authGate == nil`) each
/// entry point lets everything through and the welcome's role is `editor`.
extension Server {
    /// What a WebSocket may do once its token was checked at ESTABLISHED.
    enum SocketAdmission {
        /// In, with this role, and the token's claims when auth is on.
        case admitted(Role, Claims?)
        /// Closed at once with this code (4401, 4403) and reason; no welcome.
        case refused(code: UInt16, reason: String)
    }

    /// The token of a WebSocket: `?token=` (browsers cannot set headers on a
    /// WebSocket), or an `Authorization: Bearer` header from a program.
    func admitSocket(_ wsi: OpaquePointer, client: ClientID, room: String, at now: Moment) -> SocketAdmission {
        guard let authGate else { return .admitted(.editor, nil) }
        let verified: TokenVerifier.Verified
        do {
            verified = try authGate.verify(requestToken(wsi))
        } catch {
            noteAuthFailure(error.label, "\(client) room=\(room): \(error)", at: now)
            return .refused(code: 4401, reason: error.description)
        }
        guard verified.claims.covers(room: room) else {
            noteAuthFailure("room", "\(client) sub=\(verified.claims.subject): token does not cover room '\(room)'", at: now)
            return .refused(code: 4403, reason: "token does not cover room '\(room)'")
        }
        if verified.byPreviousSecret { log.debug("\(client) sub=\(verified.claims.subject): token signed with the previous secret") }
        return .admitted(verified.claims.role, verified.claims)
    }

    /// Checks a refreshed token against the connection's current one: `nil`
    /// when it is good (then it replaces the current claims), else why not
    /// (logged and counted). Auth off: always `nil`.
    func checkRefresh(_ connection: Connection, in host: RoomHost, token: String, at now: Moment) -> String? {
        guard let authGate, let current = connection.claims else { return nil }
        let problem: (label: String, text: String)
        do {
            let fresh = try authGate.verify(token).claims
            if fresh.subject != current.subject {
                problem = ("refresh", "the token is for another user (sub)")
            } else if !fresh.covers(room: host.room.id) {
                problem = ("room", "token does not cover room '\(host.room.id)'")
            } else if fresh.role != current.role {
                problem = ("refresh", "the token changes the role from \(current.role.rawValue) to \(fresh.role.rawValue): reconnect with it")
            } else {
                connection.claims = fresh
                log.debug("\(connection.client) token refreshed, exp=\(Int(fresh.expires))")
                return nil
            }
        } catch {
            problem = (error.label, error.description)
        }
        noteAuthFailure(problem.label, "\(connection.client) refresh refused: \(problem.text)", at: now)
        return problem.text
    }

    /// From housekeeping: closes with 4401 every session past its token's
    /// `exp` plus the leeway that has not sent a fresh one.
    func closeExpiredSessions(at now: Moment) {
        guard let authGate else { return }
        let wall = authGate.wallNow
        for connection in connections.values where connection.closing == nil {
            guard let claims = connection.claims, authGate.expired(claims, at: wall) else { continue }
            noteAuthFailure("expired", "\(connection.client) sub=\(claims.subject): token expired, closing with 4401", at: now)
            close(connection, code: 4401, reason: TokenFailure.expired.description)
        }
    }

    /// Checks the token of an HTTP API request (`parts`: the path after
    /// `/api`) and keeps its claims on `exchange`; the answer that refuses the
    /// request, or `nil` to go on. 401 for a missing or bad token, 403 for a
    /// room the token does not cover or a role that may not do this.
    func authorizeAPI(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer? {
        if let refusal = tokenRefusal(exchange) { return refusal }
        guard let claims = exchange.claims else { return nil }
        let now = MonotonicClock.now()
        if parts.first == "cluster", !claims.role.includes(.admin) {
            noteAuthFailure("role", "http \(exchange.method.name) \(exchange.path) sub=\(claims.subject): role \(claims.role.rawValue)", at: now)
            return .json(403, problem("forbidden", "the cluster's state needs the admin role"))
        }
        guard parts.first == "rooms" else { return nil }
        let needed: Role = switch (exchange.method, parts.count) {
        case (.post, 1), (.delete, 2): .admin
        case _ where Self.breaksAClaim(exchange.method, parts): .admin
        case (.put, _), (.post, _), (.delete, _): .editor
        default: .viewer
        }
        // The room the request is about: in the path; for a create, the room
        // its body will create, read by the one reader `postRoom` applies (a
        // first parse of `"id"` once disagreed with it, and a scoped admin created rooms outside its scope).
        let room: String?
        if parts.count >= 2 {
            room = parts[1]
        } else if exchange.method == .post {
            // The role first: a viewer's body is never read.
            if let refusal = roleRefusal(claims, needed, exchange, at: now) { return refusal }
            switch roomBody(exchange) {
            case let .success(body): room = body.room
            case let .failure(refusal): return refusal.answer // nothing is applied: the same 400 as without auth
            }
        } else {
            room = nil
        }
        if let room, !claims.covers(room: room) {
            noteAuthFailure("room", "http \(exchange.method.name) \(exchange.path) sub=\(claims.subject): token does not cover room '\(room)'", at: now)
            return .json(403, problem("forbidden", "token does not cover room '\(room)'"))
        }
        return roleRefusal(claims, needed, exchange, at: now)
    }

    /// The 403 for a token whose role is below `needed`, or `nil`.
    private func roleRefusal(_ claims: Claims, _ needed: Role, _ exchange: HTTPExchange, at now: Moment) -> HTTPAnswer? {
        guard !claims.role.includes(needed) else { return nil }
        noteAuthFailure("role", "http \(exchange.method.name) \(exchange.path) sub=\(claims.subject): role \(claims.role.rawValue)", at: now)
        let what = needed == .admin ? "creating, replacing and deleting rooms needs the admin role"
            : "a \(claims.role.rawValue) may not change controls"
        return .json(403, problem("forbidden", what))
    }

    /// The 401 for an API request whose token does not verify, or `nil` with
    /// its claims kept on the exchange (auth off: always `nil`). Checked as
    /// soon as the headers are in, so a stranger's body is never read.
    func tokenRefusal(_ exchange: HTTPExchange) -> HTTPAnswer? {
        guard let authGate, exchange.claims == nil else { return nil }
        do {
            exchange.claims = try authGate.verify(exchange.token).claims
            return nil
        } catch {
            noteAuthFailure(error.label, "http \(exchange.method.name) \(exchange.path): \(error)", at: MonotonicClock.now())
            let challenge = error == .missing ? "Bearer realm=\"tandem\"" : "Bearer realm=\"tandem\", error=\"invalid_token\""
            return .body(status: 401, contentType: "application/json", bytes: problem("unauthorized", error.description),
                         headers: [("WWW-Authenticate", challenge)])
        }
    }

    /// The token a request carries: `?token=`, else `Authorization: Bearer …`.
    func requestToken(_ wsi: OpaquePointer) -> String? {
        if let token = queryArgument(wsi, "token", capacity: TokenVerifier.maxLength + 2), !token.isEmpty { return token }
        let length = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: min(length, TokenVerifier.maxLength + 64) + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_AUTHORIZATION) > 0 else {
            return String(repeating: "x", count: TokenVerifier.maxLength + 1) // too long to copy: refused as too long
        }
        let header = string(buffer)
        let scheme = "bearer "
        guard header.count > scheme.count, header.prefix(scheme.count).lowercased() == scheme else { return nil }
        return String(header.dropFirst(scheme.count).drop { $0 == " " })
    }

    /// Counts a refusal under `label` and logs it, a few lines a second at most.
    func noteAuthFailure(_ label: String, _ text: String, at now: Moment) {
        metrics.authFailures[label, default: 0] += 1
        // A stranger can send thousands a second: the lines are rate limited, the metric counts all.
        throttled("auth", .info, "auth refused \(text)")
    }

    /// The start lines about auth: `mode=token` or `mode=open` is on the start line itself.
    func logAuthMode() {
        guard let authGate else {
            log.warn("auth is off: anyone who can reach this port can change every control (mode=open)")
            if !RequestPolicy.isLoopbackAddress(config.host) {
                log.error("auth is off and the server listens on \(config.host), beyond this machine: give --auth-secret-file (docs/security.md)")
            }
            return
        }
        let secrets = authGate.verifier.secrets.count
        log.info("auth is on: every WebSocket and API request needs an HS256 token (\(secrets == 2 ? "current and previous secret" : "one secret"), leeway \(Int(authGate.verifier.leeway)) s)")
    }
}

extension Role {
    /// Whether this role may do what `other` may: viewer < editor < admin.
    func includes(_ other: Role) -> Bool {
        switch (self, other) {
        case (.admin, _), (.editor, .editor), (.editor, .viewer), (.viewer, .viewer): true
        default: false
        }
    }
}
