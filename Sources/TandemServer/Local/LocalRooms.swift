import TandemCore
import TandemStorage
import TandemWire

/// Rooms that live in this process (docs/architecture.md, "The room seam"):
/// each room's engine applies its members' messages itself, in memory
/// (`--data :memory:`) or with its commits written to the SQLite file after
/// each loop turn, before anyone is told of them (LocalRooms+Durability.swift).
final class LocalRooms: RoomServiceBase, RoomService {
    /// The SQLite file, unless `--data :memory:`.
    let storage: Storage?
    /// This turn's commits, written in one transaction after the turn.
    var unwritten: [StoredCommit] = []
    /// Rooms whose frames wait for that transaction.
    var withheld: Set<String> = []
    /// Whether the file takes writes, and what failed when it does not (LocalRooms+Durability.swift).
    let storageWatch = StorageWatch()
    /// History retention between its passes (`--history-keep`, LocalRooms+Retention.swift).
    lazy var retention = RetentionPass(watch: storageWatch)
    /// Every gauge's series (and those of controls that ask for one), fed with
    /// each durable commit and written to the file once a tick (SeriesBook.swift).
    let series: SeriesBook
    /// The revisions of rooms deleted since start, so that a room created again
    /// under the same id never reuses a revision (storage keeps them across restarts).
    var retiredRevisions: [String: Int] = [:]

    /// Opens the file (unless `--data :memory:`) and serves `ordered` (the
    /// built-in rooms and the room files), then every other room the file holds.
    /// Room files are saved on every start, so the stored schema follows the file;
    /// built-in rooms (the demo) only on first start. A stored room keeps its state.
    init(config: ServerConfig, ordered: [(schema: RoomSchema, fromFile: Bool)], lines: LogLines, metrics: Metrics,
         rooms: RoomTable) throws(ServerError) {
        do {
            if config.dataPath == ":memory:" {
                storage = nil
                for (schema, _) in ordered {
                    rooms[schema.id] = Self.makeHost(Room(schema: schema), config: config)
                }
            } else {
                let storage = try Storage(path: config.dataPath, durability: config.durability)
                self.storage = storage
                for (schema, fromFile) in ordered {
                    let before = try? storage.loadRoom(schema.id)
                    guard fromFile || before == nil else { continue }
                    if let before, before.schema != schema { rooms.schemaChangedAt[schema.id] = before.revision }
                    try storage.saveRoom(schema)
                }
                let stored = try storage.loadRooms()
                for id in ordered.map(\.schema.id) + stored.map(\.schema.id) where rooms[id] == nil {
                    guard let room = stored.first(where: { $0.schema.id == id }) else { continue }
                    rooms[id] = Self.makeHost(Room(room), config: config)
                }
            }
        } catch {
            throw ServerError(description: error.description)
        }
        let book = SeriesBook(store: storage)
        do {
            for id in rooms.order { if let host = rooms[id] { try book.load(host.room.schema) } }
        } catch {
            throw ServerError(description: "\(error)")
        }
        series = book
        super.init(config: config, lines: lines, metrics: metrics, rooms: rooms)
    }

    /// The host of `room`, with the limits this server's configuration sets.
    static func makeHost(_ room: Room, config: ServerConfig) -> LocalRoomHost {
        var room = room
        room.limits.presence = config.presenceLimit
        // With a SQLite file, the room remembers what the file holds of it, to go
        // back there when a write fails (LocalRooms+Durability.swift); a new room's state is in the file.
        if config.dataPath != ":memory:" { room.markDurable() }
        return LocalRoomHost(room: room)
    }

    // MARK: lifecycle

    var startDescription: String {
        "data=\(config.dataPath)\(storage == nil ? "" : " durability=\(config.durability.rawValue)")"
    }

    var clientPrefix: String { "" }

    func start(_ turn: () -> Bool) {}

    /// After the start lines: every room's dump to the OSC targets, and a first retention pass.
    func started() {
        for id in rooms.order { if let host = rooms[id] { sendDump(host) } }
        pruneHistory(at: MonotonicClock.now())
    }

    func endOfTurn() {
        writeCommits()
    }

    func stop() {}

    func finish() {
        flushSeries() // the buckets of the last quarter second
        storage?.close()
    }

    /// Every 250 ms: lapsed holds, presence refreshes, retention, the file's health.
    func tick(at now: Moment) {
        flushPresetLists(at: now)
        for host in rooms.values.lazy.map(local) where host.room.hasLapsedHold(at: now) {
            dispatch(host.room.expire(at: now), in: host, arrival: now)
        }
        for host in rooms.values.lazy.map(local) where host.presenceRefresh.due(host.room.present, at: now) {
            host.room.refreshPresence()
            broadcast(in: host, at: now)
        }
        retentionTick(at: now)
        storageTick(at: now)
        flushSeries()
    }

    /// Whether commits of this turn wait for storage (the OSC bridge sends them once written).
    var commitsPending: Bool { !unwritten.isEmpty }

    // MARK: side stores

    override func presetBook(_ id: String) -> PresetBook? { loadPresetBook(id) } // LocalRooms+Presets.swift

    override var timelineSource: TimelineSource? { storage }

    override var seriesBook: SeriesBook? { series }

    override func writeCommits() { writeTurn() } // LocalRooms+Durability.swift

    func ownRoute(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer? {
        guard parts == ["cluster"] else { return nil }
        return .json(404, problem("not_found", "this server is not in a cluster (start it with --redis URL)"))
    }

    // MARK: health and metrics

    func healthProblem() -> String? { storageHealthProblem() }

    func exposition() -> String {
        (storage != nil ? retention.exposition() : "") + series.exposition() // LocalRooms+Retention.swift, SeriesBook.swift
    }

    var memberCount: Int { rooms.values.reduce(0) { $0 + $1.room.memberCount } }
}
