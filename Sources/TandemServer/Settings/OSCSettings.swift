import TandemOSCLink

/// The OSC bridge (docs/osc.md): where a room's values go out as OSC and
/// where OSC comes in as writes. Empty: no bridge.
public struct OSCSettings: Sendable, Hashable {
    /// `--osc-send udp://HOST:PORT`, repeatable: every commit (and dump, and
    /// preview with `previews`) goes to each.
    public var targets: [OSCTarget] = []
    /// `--osc-previews`: live drags go out too, at most 60 updates a second per thumb.
    public var previews = false
    /// `--osc-listen udp://ADDR:PORT`: the address and port OSC writes come in on (port 0: any free one).
    public var listen: SocketAddress?
    /// `--osc-allow CIDR`, repeatable: senders allowed besides loopback.
    public var allow: [IPRange] = []
    /// Seconds after its last write that an OSC writer leaves the room.
    public var writerIdle: Double = 30
    /// Previews of one thumb go out at least this many seconds apart (1/60 s).
    public var previewInterval: Double = 1.0 / 60

    /// `udp://ADDR:PORT` or `osc.udp://ADDR:PORT[/]`, ADDR an IP literal ([v6] in
    /// brackets), PORT 0 to 65535: where to listen; `nil` when it is not of that shape.
    public static func listenAddress(url: String) -> SocketAddress? {
        var rest = Substring(url)
        for scheme in ["osc.udp://", "udp://"] where rest.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            break
        }
        guard rest.count < url.count else { return nil }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        var host = rest[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard let port = Int(rest[rest.index(after: colon)...]), (0...65535).contains(port),
              let ip = IPAddress(String(host)) else { return nil }
        return SocketAddress(ip: ip, port: port)
    }

    public init() {}

    /// Whether the bridge runs at all.
    public var isEnabled: Bool { !targets.isEmpty || listen != nil }

    /// Whether a datagram from `ip` may write: loopback always, others when `--osc-allow` covers them.
    public func allows(_ ip: IPAddress) -> Bool {
        ip.isLoopback || allow.contains { $0.contains(ip) }
    }
}
