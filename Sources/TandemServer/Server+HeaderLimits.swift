import CLibWebSockets
import CTandemShim
import TandemAuth

/// Whether the header table could not be read once (another lws build): warned once.
nonisolated(unsafe) private var headerTableUnreadable = false

/// The request head's limits (docs/security.md, "HTTP hardening"): the size
/// of lws' header table, the 431 for a request that does not fit it, and
/// the 400 for a header name that is not a token (RFC 9112 section 5.1:
/// `Transfer-Encoding : chunked`, with a space before the colon, must be refused).
extension Server {
    /// lws' header table per request (`max_http_header_data`), in bytes: the
    /// URI (query included) and every header value lws keeps, plus 8 bytes and
    /// the name of each header it does not know. 16 KiB holds the longest
    /// token the server accepts (`TokenVerifier.maxLength`, 4 KiB) twice — in
    /// `?token=` and in `Authorization` — with room for a browser's usual
    /// headers and cookies; lws' default of 4 KiB dropped a request with a
    /// 4 KiB token without a word. A request over it gets 431.
    static let headerTableBytes = 16 * 1024

    /// 400 for a request with a header name that is not an RFC 9110 token, or `nil`.
    func headerNameRefusal(_ wsi: OpaquePointer) -> (code: String, message: String)? {
        var buffer = [CChar](repeating: 0, count: 65)
        switch tandem_bad_header_name(wsi, UInt32(Self.headerTableBytes), &buffer, Int32(buffer.count)) {
        case 1:
            let name = RequestPolicy.printable(string(buffer))
            metrics.refusals["bad_header_name", default: 0] += 1
            throttled("bad_header_name", .info, "refused a request with 400: the header name '\(name)' is not a token")
            return ("bad_request", "the header name '\(name)' is not a token (RFC 9110): no spaces or control bytes in a name, no space before its colon")
        case -1 where !headerTableUnreadable:
            headerTableUnreadable = true
            log.warn("lws' header table has a layout this build does not know: header names are not checked (Sources/CTandemShim/headers.c)")
            return nil
        default:
            return nil
        }
    }

    /// At start: the 431 written to a socket whose request headers do not
    /// fit the header table (plain TCP; under TLS lws closes such a socket
    /// without an answer, as before).
    func prepareHeaderOverflowAnswer() {
        guard config.tls == nil else { return }
        let message = "the request's headers are over \(Self.headerTableBytes) bytes in all"
            + " (a token is at most \(TokenVerifier.maxLength) bytes)"
        let body = problem("headers_too_large", message) + [UInt8(ascii: "\n")]
        let head = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        let answer = Array(head.utf8) + body
        answer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { tandem_header_overflow_answer($0.baseAddress, $0.count) }
        }
    }

    /// lws said a request's headers do not fit its table (its parser fails
    /// and it closes the socket next): the shim answers 431 at that close.
    /// `true` when the line was about header space (not logged as lws' own).
    func noteHeaderOverflow(_ line: String) -> Bool {
        guard line.hasPrefix("Ran out of header data space") || line.hasPrefix("More hdr frags than we can deal with") else { return false }
        // lws writes the line more than once for one request: counted once.
        guard tandem_header_overflow_note() != 0 else { return true }
        metrics.refusals["headers_too_large", default: 0] += 1
        if config.tls == nil { metrics.httpRequests[431, default: 0] += 1 }
        throttled("headers_too_large", .info, "refused a request with 431: its headers are over \(Self.headerTableBytes) bytes")
        return true
    }
}
