#if canImport(Glibc)
import Glibc
#endif
import TandemBench
import TandemWire

/// A tiny blocking HTTP/1.1 client for the admin API, used before and after
/// the run (never inside the event loop).
enum HTTP {
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The server could not be reached at all (rather than answering oddly).
        var connecting = false
        /// The server refused the token (401 or 403): the run cannot go on.
        var refused = false
    }

    /// One request to the server of `flags` (https for a wss:// URL), with
    /// `--token` as `Authorization: Bearer`. A 401 or 403 throws a `refused`
    /// failure naming the status and the server's message.
    static func request(_ flags: Flags, method: String, path: String, body: [UInt8] = []) throws(Failure) -> Response {
        let response = try request(host: flags.host, port: flags.port, tls: flags.tls, insecure: flags.insecure,
                                   token: flags.token, method: method, path: path, body: body)
        guard !BenchToken.isRefusal(status: response.status) else {
            // The API's errors are {"code":…,"message":…}; anything else is shown as it came.
            let message = (try? JSONParser.parse(response.body))?["message"]?.stringValue
                ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw Failure(description: BenchToken.refusal("HTTP \(response.status)", reason: "\(message) (\(method) \(path))"), refused: true)
        }
        return response
    }

    /// One request with `Connection: close`; the response is read to EOF.
    static func request(host: String, port: Int, tls: Bool = false, insecure: Bool = false, token: String? = nil,
                        method: String, path: String, body: [UInt8] = []) throws(Failure) -> Response {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host)", connecting: true)
        }
        defer { freeaddrinfo(list) }
        var fd: Int32 = -1
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            let s = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if s >= 0 {
                if connect(s, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { fd = s; break }
                Glibc.close(s)
            }
            node = current.pointee.ai_next
        }
        guard fd >= 0 else { throw Failure(description: "cannot connect to \(host):\(port): \(String(cString: strerror(errno)))", connecting: true) }
        defer { Glibc.close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let stream = tls ? try TLSStream(fd: fd, host: host, port: port, insecure: insecure) : nil
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if !body.isEmpty || method == "POST" {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        if let stream {
            guard stream.write(request) else { throw Failure(description: "TLS send failed: \(TLSStream.reason())") }
        }
        while stream == nil, sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: \(String(cString: strerror(errno)))") }
            sent += n
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = stream.map { $0.read(&chunk) } ?? chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, stream != nil { throw Failure(description: "TLS receive failed: \(TLSStream.reason())") }
            if n < 0 { throw Failure(description: "recv failed: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            response += chunk[0..<n]
        }
        return try parse(response)
    }

    private static func parse(_ bytes: [UInt8]) throws(Failure) -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var split: Int?
        if bytes.count >= 4 {
            for i in 0...(bytes.count - 4) where bytes[i..<(i + 4)].elementsEqual(separator) { split = i; break }
        }
        guard let split else { throw Failure(description: "malformed HTTP response") }
        let head = String(decoding: bytes[..<split], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "malformed status line") }
        var body = Array(bytes[(split + 4)...])
        let chunked = lines.dropFirst().contains { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }
        if chunked { body = dechunk(body) }
        return Response(status: status, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            var j = i
            while j + 1 < bytes.count, !(bytes[j] == 13 && bytes[j + 1] == 10) { j += 1 }
            let sizeText = String(decoding: bytes[i..<j], as: UTF8.self).split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingSpaces, radix: 16), size > 0 else { break }
            let start = j + 2
            guard start + size <= bytes.count else { break }
            out += bytes[start..<(start + size)]
            i = start + size + 2
        }
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
