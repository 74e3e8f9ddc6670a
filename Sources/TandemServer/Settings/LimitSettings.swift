/// Limits that hold under abuse: connections, handshakes, bodies, rooms
/// (docs/security.md, "Limits").
public struct LimitSettings: Sendable, Hashable {
    /// Rooms served at most (`--max-rooms`): past it `POST /api/rooms` of a new
    /// room is refused (409 `too_many_rooms`); replacing one still works. Each
    /// room costs memory and a share of every restart; 100,000 anonymous rooms
    /// took the server to 6.3 GiB and a 49 s restart (issue 10).
    public var maxRooms = 1_000
    public init() {}
}
