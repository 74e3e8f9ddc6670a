import TandemAuth

/// One HTTP request and its answer, from LWS_CALLBACK_HTTP to the end of the body write.
final class HTTPExchange {
    /// The request method.
    let method: HTTPMethod
    /// The path, without the query.
    let path: String
    /// The query arguments the API reads (`since`, `limit`), url-decoded.
    var query: [String: String] = [:]
    /// The request body, for PUT and POST (at most `HTTPExchange.maxBody` bytes).
    var body: [UInt8] = []
    /// The token the request carries (`Authorization: Bearer`, `?token=`), read while auth is on.
    var token: String?
    /// The claims of that token once checked (`Server.authorizeAPI`).
    var claims: Claims?
    /// Whether the body grew past the limit.
    var bodyTooLarge = false
    /// The answer's body, written on the next HTTP writable callback.
    var response: [UInt8]?

    /// Request bodies are room schemas or single values: 64 KiB is plenty.
    static let maxBody = 64 * 1024

    init(method: HTTPMethod, path: String) {
        self.method = method
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
    /// A file from the web root, sent by lws.
    case file(path: String, contentType: String)

    static func json(_ status: Int, _ bytes: [UInt8]) -> HTTPAnswer {
        .body(status: status, contentType: "application/json", bytes: bytes)
    }

    static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPAnswer {
        .body(status: status, contentType: contentType, bytes: Array(text.utf8))
    }
}
