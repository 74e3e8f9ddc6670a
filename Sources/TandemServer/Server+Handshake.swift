import CLibWebSockets
import CTandemShim

/// A WebSocket handshake refused before the upgrade. Every refusal is
/// answered like the API's: `HTTP/1.1 CODE Reason`, `Content-Type:
/// application/json`, the problem body `{"code":…,"message":…}`, and
/// `Connection: close` (docs/security.md, "Upgrade refusals"). lws' own
/// refusal page said HTTP/1.0, wrapped the message in HTML (linking an
/// `/error.css` that does not exist) and had no reason phrase for 421 or 426:
/// standard clients could not read it (Python's `websockets`: "did not
/// receive a valid HTTP response").
struct UpgradeRefusal: Equatable {
    /// The HTTP status: 400, 403, 404, 421, 426.
    let status: Int
    /// The problem's `code`, as in the API's answers.
    let code: String
    /// What the refusal says, for a person.
    let message: String
    /// The label of `tandem_handshakes_refused_total{reason}`.
    let reason: String
    /// One more header (426 names the version spoken).
    var header: (name: String, value: String)?

    static func == (a: UpgradeRefusal, b: UpgradeRefusal) -> Bool {
        a.status == b.status && a.code == b.code && a.message == b.message && a.reason == b.reason
            && a.header?.name == b.header?.name && a.header?.value == b.header?.value
    }
}

extension Server {
    /// The subprotocol of the wire contract; a client that offers none is taken as speaking it.
    static let subprotocol = "tandem.v1"

    /// LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: every check of a WebSocket
    /// handshake that can be answered before the upgrade, in order: the
    /// header names, the Host and Origin (RequestPolicy), the path, the
    /// version, the subprotocol. Returns what the callback returns: 0 to
    /// upgrade, >0 when the refusal was written (lws ends the transaction),
    /// -1 to drop the connection (the refusal could not be written).
    ///
    /// What is known only after the upgrade stays a close code, which is what
    /// a browser's WebSocket can see (it is never shown a refused handshake's
    /// status): a bad token 4401, a room it does not cover 4403, an unknown
    /// room 4404 (the token comes first, so that a stranger learns nothing of
    /// which rooms exist), a server or address over its connection limits 1013.
    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        noteRequest(wsi)
        guard let refusal = headerNameRefusal(wsi).map({ UpgradeRefusal(status: 400, code: $0.code, message: $0.message, reason: "header") })
                ?? upgradeRefusal(wsi) ?? versionOrSubprotocolRefusal(wsi) else { return 0 }
        return answerUpgradeRefusal(wsi, refusal)
    }

    /// Writes `refusal` in one go, counts it and logs it (rate-limited).
    func answerUpgradeRefusal(_ wsi: OpaquePointer, _ refusal: UpgradeRefusal) -> Int32 {
        metrics.httpRequests[refusal.status, default: 0] += 1
        metrics.transport.handshakesRefused[refusal.reason, default: 0] += 1
        throttled("handshake-\(refusal.reason)", .info, "handshake refused with \(refusal.status): \(refusal.message)")
        let body = problem(refusal.code, refusal.message) + [UInt8(ascii: "\n")]
        let written = body.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                tandem_answer_http(wsi, UInt32(refusal.status), chars.baseAddress, chars.count,
                                   refusal.header.map { $0.name + ":" }, refusal.header?.value)
            }
        }
        return written == 0 ? 1 : -1
    }

    /// What lws would not refuse: a `Sec-WebSocket-Version` other than 13
    /// (or none) gets 426 with `Sec-WebSocket-Version: 13` (RFC 6455, 4.4),
    /// where lws 4.1 upgrades any; a `Sec-WebSocket-Protocol` list without
    /// `tandem.v1` gets 400 saying so, where lws drops the TCP connection
    /// without a word.
    func versionOrSubprotocolRefusal(_ wsi: OpaquePointer) -> UpgradeRefusal? {
        let version = handshakeHeader(wsi, WSI_TOKEN_VERSION)
        if version?.trimmed != "13" {
            let offered = version.map { "version \($0.trimmed.isEmpty ? "(empty)" : String($0.trimmed.prefix(16)))" } ?? "no Sec-WebSocket-Version"
            return UpgradeRefusal(status: 426, code: "upgrade_required",
                                  message: "this server speaks WebSocket version 13 (RFC 6455); the request offered \(offered)",
                                  reason: "version", header: ("Sec-WebSocket-Version", "13"))
        }
        guard let offered = handshakeHeader(wsi, WSI_TOKEN_PROTOCOL) else {
            return UpgradeRefusal(status: 400, code: "bad_subprotocol",
                                  message: "the Sec-WebSocket-Protocol list is too long; offer \(Self.subprotocol)", reason: "subprotocol")
        }
        let names = offered.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        if !names.isEmpty && !names.contains(Self.subprotocol) {
            let shown = names.prefix(4).map { String($0.prefix(32)) }.joined(separator: ", ")
            return UpgradeRefusal(status: 400, code: "bad_subprotocol",
                                  message: "unsupported subprotocol (offered: \(shown)); this server speaks \(Self.subprotocol), or no subprotocol at all",
                                  reason: "subprotocol")
        }
        return nil
    }

    /// A request header's value: "" when absent, `nil` when longer than 256 bytes.
    private func handshakeHeader(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        var buffer = [CChar](repeating: 0, count: 257)
        let n = tandem_header(wsi, Int32(token.rawValue), &buffer, Int32(buffer.count))
        guard n >= 0 else { return nil }
        return string(buffer)
    }

    /// `text` made safe inside a JSON string (quotes, backslashes, control characters).
    func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (header values, list items).
    var trimmed: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
