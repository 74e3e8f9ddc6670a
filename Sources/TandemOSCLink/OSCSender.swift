import CLiblo
import Glibc
import TandemOSC

/// Sends messages to one target through liblo (`lo_address_new`, `lo_send_message`).
///
/// Used on one thread (the server's loop). A host name is looked up by liblo
/// on the first send and kept; an address literal is never looked up.
///
/// Debian builds liblo without IPv6 (it resolves with `PF_INET` only), so an
/// IPv6 target (`udp://[::1]:9000`) is sent from a socket of our own instead:
/// the same bytes, liblo-encoded (`OSCPacket.encode`), by `sendto`.
public final class OSCSender {
    public let target: OSCTarget
    private let route: Route
    /// Why the last send failed; `nil` after a send that worked.
    public private(set) var lastError: String?

    private enum Route {
        case liblo(lo_address)
        case v6(fd: Int32, address: sockaddr_in6)
    }

    /// A sender to `target`; `nil` when liblo cannot make the address (or, for
    /// an IPv6 target, when no IPv6 socket can be made).
    public init?(_ target: OSCTarget) {
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, target.host, &v6.sin6_addr) == 1 {
            let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return nil }
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(target.port).bigEndian)
            route = .v6(fd: fd, address: v6)
        } else {
            guard let address = lo_address_new(target.host, String(target.port)) else { return nil }
            route = .liblo(address)
        }
        self.target = target
    }

    /// Sends one message now; false when it could not be sent (then see `lastError`).
    /// UDP: the datagram is handed to the kernel, and nothing waits for the peer.
    @discardableResult public func send(_ message: OSCMessage) -> Bool {
        switch route {
        case let .liblo(address): lastError = sendByLiblo(message, to: address)
        case let .v6(fd, address): lastError = sendByV6(message, fd: fd, to: address)
        }
        return lastError == nil
    }

    private func sendByLiblo(_ message: OSCMessage, to address: lo_address) -> String? {
        guard let m = lo_message_new() else { return "out of memory" }
        defer { lo_message_free(m) }
        for argument in message.arguments {
            switch argument {
            case let .float(f): lo_message_add_float(m, f)
            case let .int(i): lo_message_add_int32(m, i)
            case let .string(s): lo_message_add_string(m, s)
            case let .double(d): lo_message_add_double(m, d)
            }
        }
        guard lo_send_message(address, message.address, m) < 0 else { return nil }
        return lo_address_errstr(address).map { String(cString: $0) } ?? "liblo error \(lo_address_errno(address))"
    }

    private func sendByV6(_ message: OSCMessage, fd: Int32, to address: sockaddr_in6) -> String? {
        let bytes = OSCPacket.encode(message)
        var address = address
        let sent = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        return sent < 0 ? String(cString: strerror(errno)) : nil
    }

    deinit {
        switch route {
        case let .liblo(address): lo_address_free(address)
        case let .v6(fd, _): close(fd)
        }
    }
}
