/// Where OSC goes: `udp://HOST:PORT` or `osc.udp://HOST:PORT` (liblo's form,
/// with or without its trailing `/`). HOST is a name, an IPv4 address, or an
/// IPv6 address in brackets; PORT is 1–65535.
public struct OSCTarget: Sendable, Hashable, CustomStringConvertible {
    /// A name or an address literal, without brackets.
    public var host: String
    public var port: Int

    /// The target a URL names; `nil` when it is not of the shape above.
    public init?(url: String) {
        var rest: Substring
        if url.hasPrefix("udp://") {
            rest = url.dropFirst("udp://".count)
        } else if url.hasPrefix("osc.udp://") {
            rest = url.dropFirst("osc.udp://".count)
            if rest.hasSuffix("/") { rest = rest.dropLast() }
        } else {
            return nil
        }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        let hostPart = rest[..<colon]
        let portPart = rest[rest.index(after: colon)...]
        guard (1...5).contains(portPart.count), portPart.allSatisfy({ ("0"..."9").contains($0) }),
              let port = Int(portPart), (1...65535).contains(port) else { return nil }
        if hostPart.hasPrefix("[") {
            guard hostPart.hasSuffix("]") else { return nil }
            let literal = String(hostPart.dropFirst().dropLast())
            guard let ip = IPAddress(literal), !ip.isIPv4 || literal.contains(":") else { return nil }
            host = literal
        } else {
            guard Self.isName(hostPart) else { return nil }
            host = String(hostPart)
        }
        self.port = port
    }

    /// `udp://HOST:PORT`, an IPv6 host in brackets.
    public var description: String {
        host.contains(":") ? "udp://[\(host)]:\(port)" : "udp://\(host):\(port)"
    }

    /// A host name or IPv4 literal: labels of letters, digits and `-`, joined by dots, at most 253 characters.
    private static func isName(_ text: Substring) -> Bool {
        guard (1...253).contains(text.utf8.count) else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy(isNameByte)
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
