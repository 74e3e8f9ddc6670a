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
    /// Rooms served at most (`--max-rooms`): past it `POST /api/rooms` of a new
    /// room is refused (409 `too_many_rooms`); replacing one still works. Each
    /// room costs memory and a share of every restart; 100,000 anonymous rooms
    /// took the server to 6.3 GiB and a 49 s restart in the abuse probe (bench/abuse/).
    public var maxRooms = 1_000
    /// Seconds a request body may take to arrive whole, from the end of its
    /// headers (`--body-timeout`); then 408 and close. 10 s lets a full 64 KiB
    /// body come at 6.5 KB/s, far below any real link, while a client trickling
    /// a byte at a time (lws re-arms its own 5 s timeout at every byte) is cut off.
    public var bodyTimeout: Double = 10
    /// The HTTP API's rate budget per token or peer (`--http-rate`, HTTPBudget.swift):
    /// a WebSocket member's 300 messages' worth a second, twice that at once; 0: no limit.
    public var httpRate: Double = 300

    public init() {}
}
