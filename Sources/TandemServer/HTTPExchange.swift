import TandemWire
import TandemAuth
import TandemCore

/// One HTTP request and its answer, from LWS_CALLBACK_HTTP to the end of the body write.
final class HTTPExchange {
    /// The request method (`HEAD` is routed as `GET`: see `isHead`).
    let method: HTTPMethod
    /// Whether the request was a `HEAD`: answered like `GET`, without the body.
    let isHead: Bool
    /// The key of this exchange in `Server.exchanges`.
    var session: UInt64 = 0
    /// Where the request comes from (the admin API's loopback rule).
    var peer: PeerAddress?
    /// Whether a proxy relayed it (`X-Forwarded-For` or `Forwarded`): then the
    /// loopback peer is the proxy, not the person, and the admin rule says no.
    var relayed = false
    /// The `Host` header, when it passed the policy (the CSP's WebSocket origin).
    var host: String?
    /// The `Origin` header, when the request passed the policy: a page of an
    /// `--allow-origin` origin gets `Access-Control-Allow-Origin` back (CrossOrigin.swift).
    var origin: String?
    /// The `If-None-Match` header (static files: 304 when it names the file's ETag).
    var ifNoneMatch: String?
    /// When the request's headers were complete: the body deadline counts from it.
    let started = MonotonicClock.now()
    /// The decoder of a `Transfer-Encoding: chunked` body.
    var chunked: ChunkedBody?
    /// Whether the answer is on its way: later body bytes and completions are ignored.
    var answered = false
    /// Whether the connection closes after the answer: when it is given before
    /// lws has read the whole body (413, 408, a refusal, a chunked body), the
    /// bytes still coming cannot be told from a next request.
    var closeAfter = false
    /// The path, without the query.
    let path: String
    /// The query arguments the server reads (`since`, `limit`; `from`, `to`, `points` of a series; `room` for `/`), url-decoded.
    var query: [String: String] = [:]
    /// The request body, for PUT and POST (at most `HTTPExchange.maxBody` bytes).
    var body: [UInt8] = []
    /// The token the request carries (`Authorization: Bearer`, `?token=`), read while auth is on.
    var token: String?
    /// The claims of that token once checked (`Server.authorizeAPI`).
    var claims: Claims?
    /// A `POST /api/rooms` body once read (`Server.roomBody`): authorised and applied from this one reading.
    var roomBody: Result<RoomBody, RoomBodyRefusal>?
    /// The answer's body, written on the next HTTP writable callback.
    var response: [UInt8]?
    /// A deferred answer: its connection, and the answer once known (written
    /// from the next HTTP writable callback).
    var wsi: OpaquePointer?
    var pendingAnswer: HTTPAnswer?

    /// Request bodies are room schemas or single values: 64 KiB is plenty.
    static let maxBody = 64 * 1024

    init(method: HTTPMethod, path: String) {
        self.method = method == .head ? .get : method
        isHead = method == .head
        self.path = path
    }
}

/// The HTTP methods the server tells apart (the numbering is the C shim's).
enum HTTPMethod: Int32 {
    case unknown = 0, get, post, put, delete, head, options

    var name: String {
        switch self {
        case .unknown: "?"
        case .get: "GET"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .head: "HEAD"
        case .options: "OPTIONS"
        }
    }
}

/// An answer to an HTTP request.
enum HTTPAnswer {
    /// A body built in memory.
    case body(status: Int, contentType: String, bytes: [UInt8], headers: [(String, String)] = [])
    /// A file from the web root, sent by lws (or 304 when the client has it).
    case file(StaticFile, contentType: String)
    /// Given later (`Server.completeDeferred`): cluster mode's writes wait for the room's owner.
    case deferred

    static func json(_ status: Int, _ bytes: [UInt8]) -> HTTPAnswer {
        .body(status: status, contentType: "application/json", bytes: bytes)
    }

    /// 405 for an API path that takes only `allowed` (e.g. "GET, POST"), named
    /// in `Allow`, with `HEAD` added wherever `GET` is: every `GET` is also
    /// answered as a `HEAD`.
    static func methodNotAllowed(_ allowed: String) -> HTTPAnswer {
        let methods = allowed.split(separator: ",").map { String($0).trimmingSpaces() }
        let header = methods.contains("GET") && !methods.contains("HEAD") ? allowed + ", HEAD" : allowed
        return .body(status: 405, contentType: "application/json", bytes: problemBody("method_not_allowed", "use \(allowed)"),
                     headers: [("Allow", header)])
    }

    /// A room's reject to a write over HTTP: `{"code", "message"[, "holder"]}`
    /// with 404 for an unknown control, 403 forbidden, 409 busy and claimed,
    /// 503 unavailable (nothing changed) and unknown (it may have been applied), else 400.
    static func reject(_ reject: Reject) -> HTTPAnswer {
        let status = switch reject.code {
        case .unknownControl: 404
        case .forbidden: 403
        case .busy, .claimed: 409
        case .unavailable, .unknown: 503
        default: 400
        }
        var members = [JSONMember("code", .string(reject.code.rawValue)), JSONMember("message", .string(reject.message))]
        if let holder = reject.holder { members.append(JSONMember("holder", .string(holder.rawValue))) }
        return .json(status, JSON.object(members).bytes)
    }

    static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPAnswer {
        .body(status: status, contentType: contentType, bytes: Array(text.utf8))
    }
}
