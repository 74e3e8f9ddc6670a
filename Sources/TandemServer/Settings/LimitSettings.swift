/// Limits that hold under abuse: connections, handshakes, bodies, rooms
/// (docs/security.md, "Limits").
public struct LimitSettings: Sendable, Hashable {
    /// Client sockets (HTTP and WebSocket) held at once (`--max-connections`);
    /// `nil` derives it from the descriptor limit at start (`Server.connectionLimit`).
    public var maxConnections: Int?
    /// Sockets held at once per peer address, loopback exempt (`--max-connections-per-ip`); 0: no limit.
    /// 256 is many browsers' worth behind one NAT and still a small share of the default `maxConnections`.
    public var maxConnectionsPerAddress = 256
    /// Seconds a client has to send a whole request or handshake once it
    /// connected or started one (`--header-timeout`): slow or silent handshakes are closed.
    public var headerTimeout = 5

    public init() {}
}
