import Foundation

/// An HTTP/1.1 response.
struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw SocketError.protocolViolation("body is not a JSON object: \(text.prefix(200))")
        }
        return object
    }
}

/// A tiny blocking HTTP/1.1 client: one request per connection (`Connection: close`).
enum HTTPClient {
    static func request(port: Int, _ method: String, _ path: String, body: [UInt8]? = nil,
                        contentType: String = "application/json", timeout: Double = 30) throws -> HTTPResponse {
        let socket = try TCPSocket(port: port, timeout: timeout)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body {
            head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        try socket.send(Array(head.utf8) + (body ?? []))
        let response = try HTTPHead.read(from: socket)
        let payload: [UInt8]
        if let length = response.headers["content-length"].flatMap({ Int($0) }) {
            payload = try socket.read(length)
        } else if response.headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            payload = try readChunked(socket)
        } else {
            payload = try socket.readToEnd()
        }
        return HTTPResponse(status: response.status, headers: response.headers, body: payload)
    }

    static func get(port: Int, _ path: String) throws -> HTTPResponse {
        try request(port: port, "GET", path)
    }

    static func put(port: Int, _ path: String, json: String) throws -> HTTPResponse {
        try request(port: port, "PUT", path, body: Array(json.utf8))
    }

    private static func readChunked(_ socket: TCPSocket) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try socket.readLine()
            guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
                throw SocketError.protocolViolation("bad chunk size '\(sizeLine)'")
            }
            if size == 0 { _ = try? socket.readLine(); return body }
            body += try socket.read(size)
            _ = try socket.readLine()
        }
    }
}
