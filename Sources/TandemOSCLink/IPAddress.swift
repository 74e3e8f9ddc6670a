import Glibc

/// An IPv4 or IPv6 address. A v4-mapped IPv6 address (`::ffff:a.b.c.d`, how a
/// dual-stack socket sees an IPv4 sender) is that IPv4 address: equal to it, and written as it.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes of the IPv6 address, big-endian; an IPv4 address as `::ffff:a.b.c.d`.
    var high: UInt64
    var low: UInt64

    /// An IPv4 (`192.168.1.7`) or IPv6 (`fd00::1`) literal, by `inet_pton`; no names, no brackets.
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(v4: v4)
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.init(v6: v6)
    }

    init(v4: in_addr) {
        high = 0
        low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: v4.s_addr))
    }

    init(v6: in6_addr) {
        var bytes = v6
        (high, low) = withUnsafeBytes(of: &bytes) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
             raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
        }
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Whether it is an IPv4 address (or a v4-mapped IPv6 one).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// `127.0.0.0/8` or `::1`.
    public var isLoopback: Bool {
        isIPv4 ? (low >> 24) & 0xFF == 127 : high == 0 && low == 1
    }

    /// `192.168.1.7` or `fd00::1` (`inet_ntop`'s form).
    public var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\(v4 >> 16 & 0xFF).\(v4 >> 8 & 0xFF).\(v4 & 0xFF)"
        }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A datagram's sender: an address and a UDP port.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: Int

    public init(ip: IPAddress, port: Int) {
        self.ip = ip
        self.port = port
    }

    /// `127.0.0.1:5555` or `[::1]:5555`.
    public var description: String {
        ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }
}
