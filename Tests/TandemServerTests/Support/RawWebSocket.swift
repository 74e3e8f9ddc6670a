import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What went wrong on a raw socket.
enum SocketError: Error, CustomStringConvertible {
    case system(String, Int32)
    /// Nothing arrived within the receive timeout.
    case timeout
    /// The peer closed the TCP connection.
    case closed
    case protocolViolation(String)

    var description: String {
        switch self {
        case let .system(call, code): "\(call) failed: \(String(cString: strerror(code)))"
        case .timeout: "timed out waiting for data"
        case .closed: "connection closed by the peer"
        case let .protocolViolation(why): "protocol violation: \(why)"
        }
    }
}

/// A blocking TCP connection to 127.0.0.1 with a read buffer.
final class TCPSocket {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects to `127.0.0.1:port`; `receiveBuffer` sets SO_RCVBUF before connecting.
    init(port: Int, receiveBuffer: Int? = nil, timeout: Double = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError.system("socket", errno) }
        do {
            if let receiveBuffer {
                var size = Int32(receiveBuffer)
                guard setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                    throw SocketError.system("setsockopt(SO_RCVBUF)", errno)
                }
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            try setTimeout(timeout)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else { throw SocketError.system("connect", errno) }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { Glibc.close(fd) }

    /// The receive timeout (SO_RCVTIMEO) for every blocking read from now on.
    func setTimeout(_ seconds: Double) throws {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw SocketError.system("setsockopt(SO_RCVTIMEO)", errno)
        }
    }

    /// The kernel's receive buffer size (Linux reports twice what was asked).
    var receiveBufferSize: Int {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &length)
        return Int(size)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SocketError.system("send", errno)
            }
            offset += n
        }
    }

    /// Shuts down the sending side (the peer sees EOF).
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Bytes buffered and not yet consumed.
    var buffered: Int { buffer.count - start }

    /// Reads once more into the buffer: blocking (up to the timeout) or not at all.
    /// Returns false when `blocking` is false and nothing was waiting.
    @discardableResult
    func fill(blocking: Bool = true) throws -> Bool {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65536 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes {
                recv(fd, $0.baseAddress, $0.count, blocking ? 0 : Int32(MSG_DONTWAIT))
            }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 { throw SocketError.closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: if blocking { throw SocketError.timeout } else { return false }
            default: throw SocketError.system("recv", errno)
            }
        }
    }

    /// Exactly `count` bytes, if they are already buffered.
    func take(_ count: Int) -> [UInt8]? {
        guard buffered >= count else { return nil }
        defer { start += count }
        return Array(buffer[start..<start + count])
    }

    /// The buffered bytes at `offset` past the read position, without consuming them.
    func peek(_ offset: Int) -> UInt8? {
        start + offset < buffer.count ? buffer[start + offset] : nil
    }

    /// Reads exactly `count` bytes, blocking.
    func read(_ count: Int) throws -> [UInt8] {
        while buffered < count { try fill() }
        return take(count)!
    }

    /// Reads a CRLF-terminated line (without the CRLF), blocking.
    func readLine() throws -> String {
        while true {
            if let cr = buffer[start...].firstIndex(of: 0x0A) {
                var end = cr
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = cr + 1
                return line
            }
            try fill()
        }
    }

    /// Everything until the peer closes.
    func readToEnd() throws -> [UInt8] {
        while true {
            do { try fill() } catch SocketError.closed { break }
        }
        return take(buffered)!
    }
}

/// An HTTP/1.1 response head: status code and headers (names lower-cased).
struct HTTPHead {
    var status: Int
    var reason: String
    var headers: [String: String]

    static func read(from socket: TCPSocket) throws -> HTTPHead {
        let statusLine = try socket.readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw SocketError.protocolViolation("bad status line '\(statusLine)'")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try socket.readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return HTTPHead(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers)
    }
}

/// A minimal blocking WebSocket client (RFC 6455) over a raw TCP socket.
final class RawWebSocket {
    /// A message from the server.
    enum Message: Equatable, CustomStringConvertible {
        case text(String)
        case binary([UInt8])
        /// A close frame: its code (nil when it carried none) and reason.
        case close(code: UInt16?, reason: String)

        var description: String {
            switch self {
            case let .text(text): "text \(text.prefix(300))"
            case let .binary(bytes): "binary (\(bytes.count) bytes)"
            case let .close(code, reason): "close \(code.map(String.init) ?? "-") '\(reason)'"
            }
        }
    }

    enum Opcode: UInt8 {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10
    }

    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    let socket: TCPSocket
    /// The 101 response.
    let handshake: HTTPHead
    /// Whether the server's close frame has been seen (and answered).
    private(set) var closeReceived = false
    /// Frames received so far, control frames included.
    private(set) var framesReceived = 0

    /// Opens `ws://127.0.0.1:port{path}` and completes the handshake.
    init(port: Int, path: String, subprotocol: String? = "tandem.v1", receiveBuffer: Int? = nil, timeout: Double = 30) throws {
        socket = try TCPSocket(port: port, receiveBuffer: receiveBuffer, timeout: timeout)
        var nonce = [UInt8](repeating: 0, count: 16)
        for i in nonce.indices { nonce[i] = UInt8.random(in: 0...255) }
        let key = Data(nonce).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        request += "\r\n"
        try socket.send(Array(request.utf8))
        handshake = try HTTPHead.read(from: socket)
        guard handshake.status == 101 else {
            throw SocketError.protocolViolation("expected 101 Switching Protocols, got \(handshake.status) \(handshake.reason)")
        }
        let expected = Self.acceptValue(for: key)
        guard handshake.headers["sec-websocket-accept"] == expected else {
            throw SocketError.protocolViolation("Sec-WebSocket-Accept is \(handshake.headers["sec-websocket-accept"] ?? "missing"), expected \(expected)")
        }
    }

    /// base64(SHA-1(key + GUID)), what the server must answer in Sec-WebSocket-Accept.
    static func acceptValue(for key: String) -> String {
        Data(SHA1.hash(Array((key + guid).utf8))).base64EncodedString()
    }

    // MARK: sending

    /// Sends one masked frame.
    func sendFrame(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        let count = payload.count
        if count < 126 {
            frame.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(UInt8(count >> 8)); frame.append(UInt8(count & 0xFF))
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame.reserveCapacity(frame.count + count)
        for (i, byte) in payload.enumerated() { frame.append(byte ^ mask[i & 3]) }
        try socket.send(frame)
    }

    func send(text: String) throws {
        try sendFrame(.text, Array(text.utf8))
    }

    func send(binary: [UInt8]) throws {
        try sendFrame(.binary, binary)
    }

    /// Sends one text message as fragments: opcode 1 without FIN, continuations, the last with FIN.
    func send(fragments: [String]) throws {
        precondition(!fragments.isEmpty)
        for (i, fragment) in fragments.enumerated() {
            try sendFrame(i == 0 ? .text : .continuation, Array(fragment.utf8), fin: i == fragments.count - 1)
        }
    }

    /// Sends a close frame with `code` and `reason`.
    func sendClose(code: UInt16 = 1000, reason: String = "") throws {
        try sendFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    // MARK: receiving

    /// The next message, blocking up to the socket's timeout. Pings are
    /// answered with pongs, pongs skipped; a close is answered with a close.
    func receive() throws -> Message {
        while true {
            if let message = try nextMessage(blocking: true) { return message }
        }
    }

    /// The next message if one is already complete in the buffer or the socket; never blocks.
    func poll() throws -> Message? {
        if let message = try nextMessage(blocking: false) { return message }
        return nil
    }

    private var fragments: [UInt8] = []
    private var fragmentOpcode: Opcode?

    private func nextMessage(blocking: Bool) throws -> Message? {
        while true {
            guard let (fin, opcode, payload) = try nextFrame(blocking: blocking) else { return nil }
            framesReceived += 1
            switch opcode {
            case .ping:
                try? sendFrame(.pong, payload)
            case .pong:
                continue
            case .close:
                let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
                let reason = String(decoding: payload.dropFirst(2), as: UTF8.self)
                if !closeReceived {
                    closeReceived = true
                    try? sendFrame(.close, Array(payload.prefix(2)))
                }
                return .close(code: code, reason: reason)
            case .text, .binary:
                guard fragmentOpcode == nil else { throw SocketError.protocolViolation("new message inside a fragmented one") }
                if fin { return opcode == .text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload) }
                fragmentOpcode = opcode
                fragments = payload
            case .continuation:
                guard let first = fragmentOpcode else { throw SocketError.protocolViolation("continuation without a first frame") }
                fragments += payload
                if fin {
                    let whole = fragments
                    fragments = []
                    fragmentOpcode = nil
                    return first == .text ? .text(String(decoding: whole, as: UTF8.self)) : .binary(whole)
                }
            }
        }
    }

    /// Parses one frame from the buffer, reading more as needed (or returning nil when not blocking).
    private func nextFrame(blocking: Bool) throws -> (Bool, Opcode, [UInt8])? {
        while true {
            if let frame = try parseBuffered() { return frame }
            if !(try socket.fill(blocking: blocking)) { return nil }
        }
    }

    private func parseBuffered() throws -> (Bool, Opcode, [UInt8])? {
        guard let b0 = socket.peek(0), let b1 = socket.peek(1) else { return nil }
        guard b1 & 0x80 == 0 else { throw SocketError.protocolViolation("server frames must not be masked") }
        guard let opcode = Opcode(rawValue: b0 & 0x0F) else {
            throw SocketError.protocolViolation("unknown opcode \(b0 & 0x0F)")
        }
        var header = 2
        var length = Int(b1 & 0x7F)
        if length == 126 {
            guard let h = socket.peek(2), let l = socket.peek(3) else { return nil }
            length = Int(h) << 8 | Int(l)
            header = 4
        } else if length == 127 {
            guard socket.buffered >= 10 else { return nil }
            length = 0
            for i in 2..<10 { length = length << 8 | Int(socket.peek(i)!) }
            header = 10
        }
        guard socket.buffered >= header + length else { return nil }
        _ = socket.take(header)
        return (b0 & 0x80 != 0, opcode, socket.take(length)!)
    }
}

/// SHA-1 (FIPS 180-4), for the handshake's Sec-WebSocket-Accept only.
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var m = message
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { m.append(UInt8((bits >> UInt64(shift)) & 0xFF)) }
        func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: m.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + 4 * i
                w[i] = UInt32(m[j]) << 24 | UInt32(m[j + 1]) << 16 | UInt32(m[j + 2]) << 8 | UInt32(m[j + 3])
            }
            for i in 16..<80 { w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let f: UInt32, k: UInt32
                switch i {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let t = rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, rotl(b, 30), a, t)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { [UInt8($0 >> 24), UInt8(($0 >> 16) & 0xFF), UInt8(($0 >> 8) & 0xFF), UInt8($0 & 0xFF)] }
    }
}
