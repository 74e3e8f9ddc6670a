/// A block of addresses, as `--osc-allow` names it: `10.0.0.0/8`, `192.168.1.7`
/// (a /32), `::1/128`, `fd00::/8`. Host bits below the prefix are allowed and ignored.
///
/// An IPv4 range holds IPv4 senders only (and their v4-mapped IPv6 forms). An
/// IPv6 range is matched on all 128 bits, so `::/0` holds every sender, IPv4 ones too.
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    /// The first address, host bits cleared.
    public private(set) var network: IPAddress
    /// The prefix length as written: 0–32 for IPv4, 0–128 for IPv6.
    public private(set) var prefix: Int

    /// `ADDRESS` or `ADDRESS/PREFIX`; `nil` for anything else, or a prefix out of range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let ip = IPAddress(String(parts[0])) else { return nil }
        let bits = ip.isIPv4 ? 32 : 128
        var prefix = bits
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }),
                  let n = Int(digits), n <= bits else { return nil }
            prefix = n
        }
        // A v4-mapped literal (`::ffff:10.0.0.0`) is refused: its prefix would be ambiguous.
        if ip.isIPv4, parts[0].contains(":") {
            return nil
        }
        self.prefix = prefix
        network = ip
        network = masked(ip)
    }

    /// Whether `ip` is in the range.
    public func contains(_ ip: IPAddress) -> Bool {
        if network.isIPv4, !ip.isIPv4 { return false }
        return masked(ip) == network
    }

    /// `127.0.0.0/8` and `::1/128`: this machine only.
    public static let loopback: [IPRange] = [IPRange("127.0.0.0/8")!, IPRange("::1/128")!]

    /// `10.0.0.0/8`, `::1/128`: the network address and the prefix.
    public var description: String { "\(network)/\(prefix)" }

    /// The prefix as a mask over all 128 bits (an IPv4 prefix counts from bit 96).
    private func masked(_ ip: IPAddress) -> IPAddress {
        let bits = network.isIPv4 ? 96 + prefix : prefix
        let highMask: UInt64 = bits >= 64 ? .max : bits == 0 ? 0 : ~(UInt64.max >> bits)
        let lowMask: UInt64 = bits <= 64 ? 0 : bits == 128 ? .max : ~(UInt64.max >> (bits - 64))
        return IPAddress(high: ip.high & highMask, low: ip.low & lowMask)
    }
}
