import TandemTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of the test server, so that a test can
/// kill a client's connection with no close frame (`dropAll`) and keep the
/// server unreachable for a while (`refusing`).
final class TCPProxy: @unchecked Sendable {
    let port: Int
    private let upstream: Int
    private let listener: Int32
    private let lock = NSLock()
    private var sockets: [Int32] = []
    private var refusingNow = false

    init(upstream: Int) throws {
        self.upstream = upstream
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw ServerProcessError(description: "proxy cannot listen") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// While true, new connections are closed at once.
    var refusing: Bool {
        get { lock.withLock { refusingNow } }
        set { lock.withLock { refusingNow = newValue } }
    }

    /// Kills every relayed connection (both sides), no close frame.
    func dropAll() {
        let all = lock.withLock { defer { sockets = [] }; return sockets }
        for fd in all { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        dropAll()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            if refusing { close(client); continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(upstream).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected != 0 { close(client); close(server); continue }
            lock.withLock { sockets += [client, server] }
            Thread { Self.pump(from: client, to: server) }.start()
            Thread { Self.pump(from: server, to: client) }.start()
        }
    }

    private static func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            let written = buffer.withUnsafeBytes { write(sink, $0.baseAddress, n) }
            if written != n { break }
        }
        shutdown(sink, Int32(SHUT_RDWR))
        shutdown(source, Int32(SHUT_RDWR))
        // The other pump closes nothing twice: each pump closes its source only.
        close(source)
    }
}
