import Glibc

/// One UDP socket bound to exactly `address:port`, non-blocking and close-on-exec.
///
/// The socket is our own, not liblo's: liblo 0.31 binds only the wildcard
/// address (its `lo_server_new_*` call `getaddrinfo(NULL, …)`). liblo still
/// decodes every packet (`OSCPacket.decode`).
public final class OSCReceiver {
    /// Why the socket could not be made or bound, naming the address.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One datagram: its bytes (at most 64 KiB), its sender, and whether it was longer than that.
    public struct Datagram {
        public var bytes: [UInt8]
        public var source: SocketAddress
        public var truncated: Bool
    }

    /// The socket, for the caller's poll or event loop; -1 once closed.
    public private(set) var fd: Int32
    /// The bound port (the one the kernel picked, for port 0).
    public let port: Int
    /// Where every datagram is read, reused.
    private var buffer = [UInt8](repeating: 0, count: 65536)
    /// Room for the ancillary data a datagram comes with (the drop count), 8-byte aligned.
    private var control = [UInt64](repeating: 0, count: 8)
    /// Datagrams the kernel dropped on this socket since it opened, because its
    /// receive buffer was full (`SO_RXQ_OVFL`), as of the latest datagram read.
    public private(set) var kernelDrops: UInt32 = 0

    /// A socket bound to `address` (an IPv4 or IPv6 literal, no names) and `port` (0: any free port).
    public init(address: String, port: Int) throws(Failure) {
        let shown = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        guard (0...65535).contains(port) else {
            throw Failure(description: "cannot listen for OSC on \(shown): the port is not 0–65535")
        }
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if var v4 = Self.v4(address) {
            family = AF_INET
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
        } else if var v6 = Self.v6(address) {
            family = AF_INET6
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
        } else {
            throw Failure(description: "cannot listen for OSC on \(shown): '\(address)' is not an IPv4 or IPv6 address")
        }
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw Failure(description: "cannot listen for OSC on \(shown): no socket (\(Self.errnoText()))")
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "cannot listen for OSC on \(shown): \(Self.bindWords(code))")
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) }
        }
        // Each datagram then tells how many the kernel dropped before it (a flood past the buffer).
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        self.port = Self.socketAddress(local)?.port ?? port
    }

    /// The next datagram waiting, or `nil` when none is (or the socket is closed).
    public func receive() -> Datagram? {
        guard fd >= 0 else { return nil }
        var source = sockaddr_storage()
        while true {
            var flags: Int32 = 0
            var controlLength = 0
            let count = buffer.withUnsafeMutableBytes { raw in
                control.withUnsafeMutableBytes { controlBytes in
                    withUnsafeMutablePointer(to: &source) { sourcePointer in
                        var vector = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                        return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                            var header = msghdr()
                            header.msg_name = UnsafeMutableRawPointer(sourcePointer)
                            header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                            header.msg_iov = vectorPointer
                            header.msg_iovlen = 1
                            header.msg_control = controlBytes.baseAddress
                            header.msg_controllen = controlBytes.count
                            let count = recvmsg(fd, &header, 0)
                            flags = header.msg_flags
                            controlLength = Int(header.msg_controllen)
                            return count
                        }
                    }
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                return nil  // EAGAIN: none waiting; anything else: nothing to read either
            }
            readDrops(controlLength)
            guard let from = Self.socketAddress(source) else { continue }
            return Datagram(bytes: Array(buffer[..<count]), source: from, truncated: flags & Int32(MSG_TRUNC) != 0)
        }
    }

    /// Reads the drop count from the ancillary data, when it came: a walk over
    /// `cmsghdr`s (length, level, type, then the data at 8-byte alignment), as
    /// the `CMSG_*` macros do (they do not import into Swift).
    private func readDrops(_ length: Int) {
        control.withUnsafeBytes { raw in
            let header = MemoryLayout<cmsghdr>.size
            var offset = 0
            while offset + header <= min(length, raw.count) {
                let entry = raw.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
                let size = Int(entry.cmsg_len)
                guard size >= header else { return }
                if entry.cmsg_level == SOL_SOCKET, entry.cmsg_type == SO_RXQ_OVFL, offset + header + 4 <= raw.count {
                    kernelDrops = raw.loadUnaligned(fromByteOffset: offset + header, as: UInt32.self)
                }
                offset += (size + 7) & ~7
            }
        }
    }

    /// Closes the socket; again does nothing.
    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit {
        close()
    }

    // MARK: addresses

    private static func v4(_ text: String) -> sockaddr_in? {
        var address = sockaddr_in()
        guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { return nil }
        address.sin_family = sa_family_t(AF_INET)
        return address
    }

    private static func v6(_ text: String) -> sockaddr_in6? {
        var address = sockaddr_in6()
        guard inet_pton(AF_INET6, text, &address.sin6_addr) == 1 else { return nil }
        address.sin6_family = sa_family_t(AF_INET6)
        return address
    }

    /// The address and port of an IPv4 or IPv6 socket address.
    static func socketAddress(_ storage: sockaddr_storage) -> SocketAddress? {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                let v4 = raw.load(as: sockaddr_in.self)
                return SocketAddress(ip: IPAddress(v4: v4.sin_addr), port: Int(UInt16(bigEndian: v4.sin_port)))
            case AF_INET6:
                let v6 = raw.load(as: sockaddr_in6.self)
                return SocketAddress(ip: IPAddress(v6: v6.sin6_addr), port: Int(UInt16(bigEndian: v6.sin6_port)))
            default:
                return nil
            }
        }
    }

    /// A failed bind in words, the common cases first.
    private static func bindWords(_ code: Int32) -> String {
        switch code {
        case EADDRINUSE: "the port is in use (\(errnoText(code)))"
        case EADDRNOTAVAIL: "not an address of this machine (\(errnoText(code)))"
        case EACCES: "not allowed: a port below 1024 needs privileges (\(errnoText(code)))"
        default: errnoText(code)
        }
    }

    private static func errnoText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
