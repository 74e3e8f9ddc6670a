import CLibWebSockets
import TandemCore
import TandemWire

/// The `Host` and `Origin` checks (RequestPolicy) and the admin API's loopback
/// rule, hooked into the request paths with one line each: `httpRequest`,
/// `upgradeRefusal` and `api` (docs/security.md, "Origins and hosts").
extension Server {
    /// The refusal of an HTTP request with a header name that is not a token
    /// (400, and the connection closes: its framing cannot be trusted), or
    /// whose `Host` or `Origin` fails the policy; or `nil`.
    func requestRefusal(_ wsi: OpaquePointer, _ exchange: HTTPExchange) -> HTTPAnswer? {
        if let bad = headerNameRefusal(wsi) {
            exchange.closeAfter = true
            return .json(400, problem(bad.code, bad.message))
        }
        let stateChanging = exchange.method == .post || exchange.method == .put || exchange.method == .delete
        let verdict = verdict(wsi, checksOrigin: stateChanging, peer: exchange.peer)
        guard verdict != .pass else {
            exchange.host = header(wsi, WSI_TOKEN_HOST)
            exchange.origin = header(wsi, WSI_TOKEN_ORIGIN)
            return nil
        }
        noteRefusal(verdict, what: "\(exchange.method.name) \(exchange.path)", peer: exchange.peer)
        return .json(verdict.status, problem(verdict.code, verdict.message))
    }

    /// The refusal of a WebSocket upgrade whose `Host` or `Origin` fails the policy, or `nil`.
    func upgradePolicyRefusal(_ wsi: OpaquePointer) -> UpgradeRefusal? {
        let peer = PeerAddress(of: wsi)
        let verdict = verdict(wsi, checksOrigin: true, peer: peer)
        guard verdict != .pass else { return nil }
        noteRefusal(verdict, what: "upgrade \(requestPath(wsi))", peer: peer)
        return UpgradeRefusal(status: verdict.status, code: verdict.code, message: verdict.message, reason: verdict.code)
    }

    /// With auth off, the admin API (create, replace, delete rooms) answers
    /// only loopback peers unless `--open-admin`: 403 for others.
    func adminRefusal(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer? {
        // parts: ["rooms"] or ["rooms", id]
        let isAdmin = (parts.count == 1 && exchange.method == .post) || (parts.count == 2 && exchange.method == .delete)
            || Self.breaksAClaim(exchange.method, parts)
        guard isAdmin, !config.access.authEnabled, !config.access.openAdmin,
              exchange.peer?.isLoopback != true || exchange.relayed else { return nil }
        metrics.refusals["admin_not_loopback", default: 0] += 1
        throttled("admin", .warn, "refused \(exchange.method.name) \(exchange.path) from \(exchange.peer?.text ?? "?"): the admin API answers loopback peers only (auth is off)")
        return .json(403, problem("forbidden", "with auth off, the admin API answers only requests from this machine (loopback), not relayed by a proxy;"
            + " the operator can open it with --open-admin, or turn auth on"))
    }

    /// Whether the request carries `X-Forwarded-For` or `Forwarded` (RFC 7239): a proxy relayed it.
    func isRelayed(_ wsi: OpaquePointer) -> Bool {
        lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR) > 0
            || lws_hdr_custom_length(wsi, "forwarded:", Int32("forwarded:".utf8.count)) > 0
    }

    /// Start lines about the policy: what is allowed and what is not checked.
    func logOriginPolicy() {
        let policy = requestPolicy
        if policy.anyOrigin {
            log.warn("--allow-origin '*': pages from any origin may open WebSockets and change rooms here")
        }
        if !policy.boundToLoopback && policy.publicHosts.isEmpty {
            log.warn("bound to \(config.host) with no --public-host: the Host header is not checked (DNS rebinding is possible); declare the names clients use with --public-host NAME")
        }
        if !config.access.authEnabled && config.access.openAdmin {
            log.warn("--open-admin with auth off: anyone who can reach this port can create, replace and delete rooms")
        }
    }

    // MARK: reading the request

    private func verdict(_ wsi: OpaquePointer, checksOrigin: Bool, peer: PeerAddress?) -> RequestPolicy.Verdict {
        let host = header(wsi, WSI_TOKEN_HOST) ?? header(wsi, WSI_TOKEN_HTTP_COLON_AUTHORITY)
        return requestPolicy.judge(host: host, origin: header(wsi, WSI_TOKEN_ORIGIN), checksOrigin: checksOrigin,
                                   peerIsLoopback: peer?.isLoopback == true, http11: header(wsi, WSI_TOKEN_HTTP) == "HTTP/1.1")
    }

    private func noteRefusal(_ verdict: RequestPolicy.Verdict, what: String, peer: PeerAddress?) {
        metrics.refusals[verdict.code, default: 0] += 1
        throttled(verdict.code, .warn, "refused \(what) from \(peer?.text ?? "?") with \(verdict.status): \(verdict.message)")
    }

    /// A request header's value (repeated headers joined with `,`), or `nil` when absent.
    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return string(buffer)
    }
}
