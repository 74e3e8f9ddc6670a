import TandemCore

/// The one place the kind of rooms is chosen, where the server is built:
/// replicated rooms with `--redis` (or `--redis-sentinel`), else local rooms.
enum RoomServices {
    /// The rooms for `config`, serving `ordered` (the built-in rooms and the
    /// room files) and whatever their store holds besides. Replicated rooms
    /// need the server's libuv `loop` for their Redis connections.
    static func make(config: ServerConfig, ordered: [(schema: RoomSchema, fromFile: Bool)], lines: LogLines, metrics: Metrics,
                     rooms: RoomTable, loop: UnsafeMutableRawPointer?) throws(ServerError) -> any RoomService {
        guard let settings = config.cluster else {
            return try LocalRooms(config: config, ordered: ordered, lines: lines, metrics: metrics, rooms: rooms)
        }
        guard let loop else {
            throw ServerError(description: "--redis needs --event-loop uv (the cluster's Redis connections run on the libuv loop)")
        }
        return try ReplicatedRooms(config: config, settings: settings, ordered: ordered, lines: lines, metrics: metrics,
                                   rooms: rooms, loop: loop)
    }
}
