import TandemRedis

/// Cluster mode (`--redis URL` or `--redis-sentinel`, docs/scale-out.md): this
/// node shares its rooms with every other node on the same Redis.
public struct ClusterSettings: Sendable, Hashable {
    /// `redis://[:password@]host[:port][/db]`. With `redisSentinels` it gives only
    /// the password and the database (`redis://:password@/db`, or empty).
    public var redisURL: String
    /// This node's name in the cluster (`--node-id`): in `/api/cluster`, the
    /// logs, room leases and its members' client ids. Unique per node.
    public var nodeID: String
    /// How long a room's lease lasts without renewal: when its owner dies, a
    /// node with members in the room takes over after at most this long.
    public var lease: Double = 1.5
    /// `--redis-sentinel HOST:PORT[,HOST:PORT…]`: the Sentinels that name the
    /// primary (checked by `Flags`), or `nil` for a fixed `--redis` host.
    public var redisSentinels: String?
    /// `--redis-master NAME`: the master name the Sentinels monitor.
    public var redisMaster: String?
    /// `--redis-replicas N`: how many replicas must have a turn's writes before
    /// the owner acknowledges them (Redis' `WAIT`); 0: none waited for.
    public var redisReplicas = 0
    /// How long a Redis reply may take (`--redis-timeout`, seconds): past it the
    /// connection is dropped, every pending command fails, and owners step down.
    public var redisTimeout = 1.0
    /// The largest `--redis-replicas`.
    public static let maxRedisReplicas = 16

    public init(redisURL: String, nodeID: String) {
        self.redisURL = redisURL
        self.nodeID = nodeID
    }

    /// Whether the node finds Redis' primary through Sentinel.
    public var usesSentinel: Bool { redisSentinels != nil }

    /// Why `text` is not a list of Sentinels (`HOST:PORT[,HOST:PORT…]`, the port 26379
    /// when left out), or `nil`.
    public static func sentinelsProblem(_ text: String) -> String? {
        switch RedisSentinel.parseAddresses(text) {
        case .success: nil
        case let .failure(error): "\(error)".replacingFirst("bad Redis URL ", with: "bad Sentinel ")
        }
    }

    /// Why `url` cannot go with `--redis-sentinel` (it may give only the password and
    /// the database: `redis://:password@/db`), or `nil`.
    public static func sentinelURLProblem(_ url: String) -> String? {
        do {
            let parsed = try RedisURL(parsing: url, hostOptional: true)
            return parsed.host.isEmpty ? nil : "with --redis-sentinel, --redis gives only the password and db (redis://:password@/0), not a host ('\(parsed.host)')"
        } catch {
            return "\(error)"
        }
    }

    /// Whether `name` can be a Sentinel master name: 1 to 64 letters, digits, `.`, `-` or `_`.
    public static func isValidMasterName(_ name: String) -> Bool {
        RedisSentinel.isValidMasterName(name)
    }

    /// Whether `id` can name a node: 1 to 32 letters, digits, `-` or `_`
    /// (it goes into client ids, Redis keys and log lines).
    public static func isValidNodeID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 32 && id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }
}

extension String {
    fileprivate func replacingFirst(_ what: String, with other: String) -> String {
        guard hasPrefix(what) else { return self }
        return other + dropFirst(what.count)
    }
}
