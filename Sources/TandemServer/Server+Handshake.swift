import CLibWebSockets
import CTandemShim

extension Server {
    /// The subprotocol of the wire contract; a client that offers none is taken as speaking it.
    static let subprotocol = "tandem.v1"

    /// Checks a WebSocket handshake before lws takes it (HTTP_CONFIRM_UPGRADE),
    /// answering what lws would not: a `Sec-WebSocket-Version` other than 13
    /// (or none) gets 426 with `Sec-WebSocket-Version: 13` (RFC 6455, 4.4),
    /// where lws 4.1 upgrades any; a `Sec-WebSocket-Protocol` list without
    /// `tandem.v1` gets 400 saying so, where lws drops the TCP connection
    /// without a word. Returns what the callback returns when it answered
    /// (>0: lws finishes the transaction), `nil` to let the handshake go on.
    func refuseHandshake(_ wsi: OpaquePointer) -> Int32? {
        noteRequest(wsi)
        let version = handshakeHeader(wsi, WSI_TOKEN_VERSION)
        if version?.trimmed != "13" {
            let offered = version.map { "version \($0.trimmed.isEmpty ? "(empty)" : String($0.trimmed.prefix(16)))" } ?? "no Sec-WebSocket-Version"
            return refuse(wsi, reason: "version", status: 426, code: "upgrade_required",
                          message: "this server speaks WebSocket version 13 (RFC 6455); the request offered \(offered)",
                          header: ("Sec-WebSocket-Version:", "13"))
        }
        guard let offered = handshakeHeader(wsi, WSI_TOKEN_PROTOCOL) else {
            return refuse(wsi, reason: "subprotocol", status: 400, code: "bad_subprotocol",
                          message: "the Sec-WebSocket-Protocol list is too long; offer \(Self.subprotocol)")
        }
        let names = offered.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        if !names.isEmpty && !names.contains(Self.subprotocol) {
            let shown = names.prefix(4).map { String($0.prefix(32)) }.joined(separator: ", ")
            return refuse(wsi, reason: "subprotocol", status: 400, code: "bad_subprotocol",
                          message: "unsupported subprotocol (offered: \(shown)); this server speaks \(Self.subprotocol), or no subprotocol at all")
        }
        return nil
    }

    private func refuse(_ wsi: OpaquePointer, reason: String, status: Int, code: String, message: String,
                        header: (String, String)? = nil) -> Int32 {
        metrics.httpRequests[status, default: 0] += 1
        metrics.transport.handshakesRefused[reason, default: 0] += 1
        throttled("handshake-\(reason)", .info, "handshake refused with \(status): \(message)")
        return answerHTTP(wsi, status: status, code: code, message: jsonEscaped(message), header: header) ? 1 : -1
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
