import CLibWebSockets
import TandemCore

/// How a request body is framed, judged from the headers before a byte of it
/// is read (docs/security.md, "HTTP hardening"): a `Content-Length` over the
/// limit is answered 413 at once, two different lengths 400 (a request
/// smuggling shape), a chunked body is decoded here since lws 4.1 does not.
enum BodyFraming {
    /// `Content-Length: n`, within the limit.
    case length(Int)
    /// Neither header: no body (lws would wait for one; the answer closes).
    case none
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Refused before reading: the answer.
    case refused(HTTPAnswer)
}

extension Server {
    /// The framing of the body of the PUT or POST on `wsi`.
    func bodyFraming(_ wsi: OpaquePointer) -> BodyFraming {
        let length = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)
        if let coding = header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) {
            guard length == nil else {
                return refuse("both", 400, "bad_request", "a request may not carry both Content-Length and Transfer-Encoding")
            }
            guard coding.trimmingSpaces().lowercased() == "chunked" else {
                return refuse("coding", 501, "not_implemented", "the only transfer coding understood is chunked; or send a Content-Length")
            }
            return .chunked
        }
        guard let length else { return .none }
        // lws joins repeated headers with ","; a list of equal values is one length (RFC 9110 §8.6).
        let values = Set(length.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() })
        guard values.count == 1, let text = values.first, (1...18).contains(text.count),
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text) else {
            let why = values.count > 1 ? "conflicting Content-Length values" : "Content-Length must be a number of bytes"
            return refuse(values.count > 1 ? "conflicting_length" : "bad_length", 400, "bad_request", why)
        }
        guard n <= HTTPExchange.maxBody else {
            return refuse("too_large", 413, "too_large", "request bodies are limited to \(HTTPExchange.maxBody) bytes")
        }
        return .length(n)
    }

    /// 413 for a body found over `HTTPExchange.maxBody` while reading it (chunked, or longer than its length).
    func tooLarge() -> HTTPAnswer {
        let message = "request bodies are limited to \(HTTPExchange.maxBody) bytes"
        note("too_large", status: 413, message)
        return .json(413, problem("too_large", message))
    }

    /// 408 for a body that did not arrive within `--body-timeout`, or `nil`.
    /// Checked at every piece of body: a body that stops altogether meets lws'
    /// own 5 s timeout instead.
    func bodyDeadlineRefusal(_ exchange: HTTPExchange) -> HTTPAnswer? {
        let limit = config.limits.bodyTimeout
        guard MonotonicClock.now().seconds(since: exchange.started) > limit else { return nil }
        let message = "the request body did not arrive within \(Int(limit)) s (--body-timeout)"
        note("slow", status: 408, message)
        return .json(408, problem("timeout", message))
    }

    /// Counts and logs a body refused for `reason` before it was read.
    private func refuse(_ reason: String, _ status: Int, _ code: String, _ message: String) -> BodyFraming {
        note(reason, status: status, message)
        return .refused(.json(status, problem(code, message)))
    }

    /// Counts a body refusal in `tandem_http_refused_total` and logs it (rate-limited).
    private func note(_ reason: String, status: Int, _ message: String) {
        metrics.refusals["body_\(reason)", default: 0] += 1
        throttled("body_\(reason)", .info, "refused a request body with \(status): \(message)")
    }
}
