/// Limits that hold under abuse: connections, handshakes, bodies, rooms
/// (docs/security.md, "Limits").
public struct LimitSettings: Sendable, Hashable {
    public init() {}
}
