#if canImport(Glibc)
import Glibc
#endif
import TandemCore
import TandemRedis

/// This node's membership of a cluster (`--redis`, docs/scale-out.md): its
/// Redis connections, its name, and each room's replication.
///
/// Two connections on the server's libuv loop: `commands` for scripts,
/// publications and reads, `subscriber` for the channels (a subscribed
/// connection can do nothing else). `store` is a third, blocking one for
/// the rare reads and writes that answer an HTTP request or run at start.
final class Cluster {
    let settings: ClusterSettings
    let url: RedisURL
    /// This node's name.
    var node: String { settings.nodeID }
    /// What this process's client ids start with: the node's name and a tag of
    /// this start, so that a restarted node never reuses an id that the
    /// room's owner may still hold for its previous run.
    let clientPrefix: String
    let commands: RedisConnection
    let subscriber: RedisSubscriber
    let store: RedisRoomStore
    /// With `--redis-sentinel`: follows the primary (`url.route`) through failovers.
    let sentinel: RedisSentinel?
    /// Publishes a probe every second and must hear it back (DeliveryProbe.swift).
    let probe: DeliveryProbe
    /// Each room's replication, by room id.
    var replicas: [String: RoomReplica] = [:]
    /// Owned rooms whose authority changed this turn.
    var dirty: [RoomReplica] = []
    /// When the node last wrote its heartbeat.
    var lastHeartbeat = Moment.zero
    /// The other nodes as their heartbeats describe them (refreshed with this node's).
    var nodes: [String: [String: String]] = [:]
    /// When the rooms are next compared with Redis' list (`Server.reconcileRooms`):
    /// soon after the subscriber is (again) ready, since lifecycle messages may
    /// have been missed meanwhile, and every 10 s.
    var reconcileDue: Moment?
    /// Writes over HTTP waiting for their room's owner, by `seq` (`Server.clusterPut`).
    var pendingAPI: [Int: PendingWrite] = [:]
    private var apiCounter = 0
    private let apiBase: Int

    struct PendingWrite {
        enum Kind {
            case put(control: String)
            case recall(String)
            case restore(Int)
            case reset
        }

        var exchange: HTTPExchange
        var room: String
        var kind: Kind
        var deadline: Moment
    }

    /// The client id of every write over HTTP, as on a single node.
    static let apiClient = ClientID("api")

    /// A `seq` for a write over HTTP: this node's own range (a random base
    /// below 2^53) so that nodes waiting on `api` acks tell theirs apart.
    func nextAPISeq() -> Int {
        apiCounter += 1
        return apiBase + apiCounter
    }

    /// Since when Redis is unreachable, and why.
    var downSince: Moment?
    var downReason: String?

    /// `store` is the blocking connection the start opened (`Server.openClusterStore`).
    init(settings: ClusterSettings, url: RedisURL, store: RedisRoomStore, loop: UnsafeMutableRawPointer) {
        self.settings = settings
        self.url = url
        self.store = store
        var tag = UInt64(time(nil)) &* 2_654_435_761 &+ UInt64(getpid())
        var suffix = ""
        let digits = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        for _ in 0..<4 {
            suffix.append(digits[Int(tag % 36)])
            tag /= 36
        }
        clientPrefix = "\(settings.nodeID).\(suffix)."
        apiBase = Int(UInt64.random(in: 1...(1 << 31))) << 21
        commands = RedisConnection(url: url, loop: loop, name: "tandem-\(settings.nodeID)")
        subscriber = RedisSubscriber(url: url, loop: loop, name: "tandem-\(settings.nodeID)-sub")
        commands.commandTimeoutMs = UInt64(settings.redisTimeout * 1000)
        sentinel = url.route.flatMap { $0.confirmsPrimary ? RedisSentinel(route: $0, loop: loop, name: "tandem-\(settings.nodeID)") : nil }
        probe = DeliveryProbe(node: settings.nodeID, tag: clientPrefix, loop: loop)
    }

    /// Whether both connections are up.
    var up: Bool { commands.state == .ready && subscriber.state == .ready }

    /// The replica of room `id`, made on first use.
    func replica(_ id: String) -> RoomReplica {
        if let replica = replicas[id] { return replica }
        let replica = RoomReplica(id: id)
        replicas[id] = replica
        return replica
    }

    /// Lists an owned room as changed this turn.
    func markDirty(_ replica: RoomReplica) {
        guard !replica.dirty else { return }
        replica.dirty = true
        dirty.append(replica)
    }

    /// The lease in milliseconds, as scripts take it.
    var leaseMs: String { String(Int(settings.lease * 1000)) }

    /// Whether `client` is one of this process's members.
    func isOurs(_ client: ClientID) -> Bool {
        client.rawValue.hasPrefix(clientPrefix)
    }
}
