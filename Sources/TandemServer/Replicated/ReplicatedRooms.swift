import TandemCore
import TandemOSCLink
import TandemRedis
import TandemWire

/// Rooms replicated through Redis (`--redis`, docs/scale-out.md): each room
/// has one owner node at a time, holding a lease, whose authority applies
/// every message in order and publishes what changed; every node with
/// members of the room keeps a view fed by those publications, relays its
/// members' messages to the owner, and serves their frames from the view.
///
/// This node's Redis side is `cluster`; how a member joins and is answered is
/// ReplicatedRooms+Members.swift, the view ReplicatedRooms+View.swift, the
/// owner ReplicatedRooms+Owner.swift, what an unanswered message gets
/// ReplicatedRooms+Answers.swift.
final class ReplicatedRooms: RoomServiceBase, RoomService {
    /// This node's part in the cluster: its Redis connections, its name, each room's replication.
    let cluster: Cluster
    /// Relays, publications and leases (Metrics+Cluster.swift).
    var clusterMetrics = ClusterMetrics()
    /// The series of the rooms this node owns, kept in Redis (ReplicatedRooms+Series.swift).
    let series: SeriesBook
    let seriesStore: RedisSeriesStore
    /// Preset changes this node made, each waiting for its own delta before it is answered (PresetEchoes.swift).
    var presetEchoes = PresetEchoes()

    /// Connects the blocking store, seeds the cluster with `ordered` (the
    /// built-in rooms and the room files) and serves every room Redis has.
    /// The connections on `loop` start with `start()`.
    init(config: ServerConfig, settings: ClusterSettings, ordered: [(schema: RoomSchema, fromFile: Bool)], lines: LogLines,
         metrics: Metrics, rooms: RoomTable, loop: UnsafeMutableRawPointer) throws(ServerError) {
        let opened = try Self.openClusterStore(settings)
        for loaded in try Self.seedCluster(opened.store, url: opened.url, ordered, changed: &rooms.schemaChangedAt) {
            rooms[loaded.stored.schema.id] = Self.makeView(loaded, config: config)
        }
        cluster = Cluster(settings: settings, url: opened.url, store: opened.store, loop: loop)
        seriesStore = RedisSeriesStore(store: opened.store, commands: cluster.commands)
        series = SeriesBook(store: seriesStore)
        super.init(config: config, lines: lines, metrics: metrics, rooms: rooms)
    }

    // MARK: lifecycle

    var startDescription: String { "cluster=\(cluster.node) redis=\(cluster.url)" }

    var clientPrefix: String { cluster.clientPrefix }

    /// Connects, and waits until connected (at most 3 s, `turn` running the
    /// loop once): a node that says it listens is ready (/healthz 200).
    func start(_ turn: () -> Bool) {
        startCluster()
        let start = MonotonicClock.now()
        while !cluster.up, MonotonicClock.now().seconds(since: start) < 3, turn() {}
        if !cluster.up { log.warn("redis: not connected yet after 3 s; serving anyway, /healthz says 503 until it is") }
    }

    func started() {
        if config.historyKeep != nil, config.historyKeep != ServerConfig.defaultHistoryKeep {
            log.warn("--history-keep is not applied in cluster mode: Redis' commit log is kept whole (docs/scale-out.md, \"The timeline and history\")")
        }
    }

    func endOfTurn() {
        clusterFlush()
    }

    func tick(at now: Moment) {
        clusterTick(at: now)
        flushSeries() // ReplicatedRooms+Series.swift
        preloadPresets(at: now)
        for answer in presetEchoes.overdue(at: now) { answer() }
        flushPresetLists(at: now)
    }

    var commitsPending: Bool { false }

    func stop() {
        flushSeries()
        stopCluster()
    }

    func finish() {}

    // MARK: side stores

    override func presetBook(_ id: String) -> PresetBook? {
        if let book = presetBooks[id] { return book }
        loadPresets(id)
        return nil
    }

    override func withPresetBook(_ id: String, _ body: @escaping (PresetBook?) -> Void) {
        readPresetBook(id, body)
    }

    func changePreset(_ request: PresetRequest, in host: RoomHost, client: String, by: String,
                      done: @escaping (Result<PresetOutcome, PresetRefusal>) -> Void) {
        changePresetInCluster(request, in: host, client: client, by: by, done: done)
    }

    override var timelineSource: TimelineSource? { cluster.store }

    override var seriesBook: SeriesBook? { series }

    override func seriesPoints(room: String, control: String, from: Int64?, to: Int64, limit: Int) throws -> SeriesPoints {
        try clusterSeriesPoints(room: room, control: control, from: from, to: to, limit: limit)
    }

    // MARK: routes of its own

    func ownRoute(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer? {
        guard parts == ["cluster"] else { return nil }
        guard exchange.method == .get else { return .methodNotAllowed("GET") }
        return clusterAPI(for: exchange.claims) // ReplicatedRooms+API.swift
    }

    // MARK: health and metrics

    func healthProblem() -> String? { clusterHealthProblem() }

    func exposition() -> String {
        clusterMetrics.exposition(redisUp: cluster.up, owned: cluster.replicas.values.filter(\.owned).count,
                                   following: cluster.replicas.values.filter(\.subscribed).count) + series.exposition() + seriesStore.exposition()
    }

    var memberCount: Int { rooms.values.reduce(0) { $0 + $1.room.localMemberCount } }
}
