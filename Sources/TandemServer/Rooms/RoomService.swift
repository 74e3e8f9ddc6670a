import TandemAuth
import TandemCore
import TandemOSCLink
import TandemStorage
import TandemWire

/// The room seam (docs/architecture.md, "The room seam"): everything the
/// server's entry points (WebSocket, HTTP, OSC, the loop) ask of rooms,
/// whoever holds them. Two implementations: `LocalRooms` (this process's
/// engines, in memory or SQLite) and `ReplicatedRooms` (Redis, one owner
/// per room). Which one serves is chosen once, where the server is built;
/// nothing else in the server asks.
///
/// Rooms reach connections only through `Delivery`, and the OSC bridge
/// through `RoomObserver`.
protocol RoomService: AnyObject {
    /// The rooms served, by id and in listing order.
    var rooms: RoomTable { get }
    var delivery: (any Delivery)? { get set }
    var observer: (any RoomObserver)? { get set }
    var osc: OSCBridge? { get set }

    // MARK: lifecycle

    /// What the start line says of where rooms are kept.
    var startDescription: String { get }
    /// What this process's client ids start with.
    var clientPrefix: String { get }
    /// Before the start line: replicated rooms connect to Redis and wait for
    /// it a little, `turn` running the server's loop once (`false`: it stopped).
    func start(_ turn: () -> Bool)
    /// After the start lines (local rooms send their OSC dumps and run a retention pass).
    func started()
    /// After every loop turn: commits written, publications sent.
    func endOfTurn()
    /// Every 250 ms (the server's housekeeping).
    func tick(at now: Moment)
    /// Whether this turn's commits still wait to be written (the OSC bridge sends them once they are).
    var commitsPending: Bool { get }
    /// After the last turn, before the transport goes: leases given up, Redis connections closed.
    func stop()
    /// After the transport is gone: the file closed.
    func finish()

    // MARK: members

    /// A connection joins `host`'s room (its welcome follows, now or once the room's owner admitted it).
    func join(_ connection: Connection, to host: RoomHost, name: String, role: Role, since: String?, at now: Moment)
    /// A whole text message from a member.
    func receive(_ message: [UInt8], from connection: Connection, in host: RoomHost, at now: Moment)
    /// A member's connection closed.
    func leave(_ connection: Connection, from host: RoomHost, at now: Moment)

    // MARK: writes that want an answer

    /// A write over HTTP as client `api`: answered once committed (or `.deferred`, then by `Delivery.completeDeferred`).
    func write(_ write: RoomWrite, in host: RoomHost, exchange: HTTPExchange) -> HTTPAnswer
    /// An OSC writer's operation, applied as a member of the room.
    func oscWrite(_ operation: Operation, name: String, host: RoomHost, _ osc: OSCBridge, from source: SocketAddress, at now: Moment)
    /// An OSC writer leaves (quiet too long, or its room changed).
    func oscLeave(_ writer: OSCBridge.Writer, host: RoomHost, at now: Moment)
    /// Every tick, for each OSC writer still present.
    func oscWriterStays(_ writer: OSCBridge.Writer, host: RoomHost) -> Bool

    // MARK: rooms

    /// Saves `schema` as a new room or over `old`: 201 or 200 with its snapshot.
    func saveRoom(_ schema: RoomSchema, replacing old: RoomHost?) -> HTTPAnswer
    /// Deletes `id`'s room: 204, its members closed with 4404.
    func deleteRoom(_ id: String) -> HTTPAnswer
    /// An API route only this kind of rooms has (`parts`: the path after `/api`), or `nil`.
    func ownRoute(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer?

    // MARK: side stores

    func presetBook(_ id: String) -> PresetBook?
    func withPresetBook(_ id: String, _ body: @escaping (PresetBook?) -> Void)
    /// A save, rename or delete of a preset; `done` gets the outcome (at once, or once the store answered).
    func changePreset(_ request: PresetRequest, in host: RoomHost, client: String, by: String,
                      done: @escaping (Result<PresetOutcome, PresetRefusal>) -> Void)
    var timelineSource: TimelineSource? { get }
    /// The rooms' time series this node keeps in memory; `nil` where none are kept.
    var seriesBook: SeriesBook? { get }
    /// At most `limit` points of a control's series in `[from, to]`, for
    /// `GET …/series/{control}`; throws when its store cannot be read.
    func seriesPoints(room: String, control: String, from: Int64?, to: Int64, limit: Int) throws -> SeriesPoints
    /// The room at `revision` from `source`, after writing the commits still waiting.
    func read(_ host: RoomHost, _ revision: Int, _ source: TimelineSource) -> Result<TimelineMoment, TimelineRefusal>
    func writeCommits()

    // MARK: health and metrics

    /// Why this server cannot serve its rooms now (`/healthz` 503), or `nil`.
    func healthProblem() -> String?
    /// The rooms' part of `/metrics`.
    func exposition() -> String
    /// The people connected to this process's rooms.
    var memberCount: Int { get }
}

/// A write over HTTP that wants its answer once committed.
enum RoomWrite {
    /// `PUT …/controls/{control}`: `message` is the body decoded as a `set`; `body` the JSON as sent.
    case set(control: String, message: ClientMessage, body: [UInt8])
    /// `POST …/presets/{name}/recall`.
    case recall(Preset)
    /// `POST …/restore` `{"rev": R}`.
    case restore(Int)
    /// `POST …/controls/{control}/reset` (a control) and `POST …/reset` (`nil`: the whole room).
    case reset(control: String?)
    /// `DELETE …/controls/{control}/claim`: an admin ends whoever's claim (Server+Claims.swift).
    case release(control: String)
}
