#if canImport(Glibc)
import Glibc
#endif
import TandemServer

extension Flags {
    static let clusterUsage = """
      --redis URL          join a cluster on this Redis (redis://[:password@]host[:port][/db]):
                           rooms, states and the commit log live in Redis, and any node
                           serves any room (docs/scale-out.md); needs --event-loop uv
      --redis-sentinel HOST:PORT[,HOST:PORT…]
                           find Redis' primary through these Sentinels (port 26379 when
                           left out) and follow its failovers, instead of --redis's host;
                           --redis may then give the password and db only: redis://:pw@/0
      --redis-master NAME  the master name the Sentinels monitor (needs --redis-sentinel)
      --redis-replicas N   acknowledge a write once N replicas have it too (Redis' WAIT;
                           0 to 16, default 0: once the primary has it)
      --redis-timeout S    how long a Redis reply may take before the connection is
                           dropped and every pending command fails (0.1 to 10, default 1)
      --node-id NAME       this node's name in the cluster: letters, digits, - and _, at
                           most 32 (default: the host name and the port)

    """

    /// Parses `--name value` if it is one of the cluster flags; `false` if it is not.
    static func parseCluster(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        var cluster = config.cluster ?? ClusterSettings(redisURL: "", nodeID: "")
        switch name {
        case "redis":
            guard value.hasPrefix("redis://") else {
                throw Problem(message: "--redis must be a redis:// URL (redis://host:6379/0), not '\(value)'")
            }
            cluster.redisURL = value
        case "redis-sentinel":
            if let problem = ClusterSettings.sentinelsProblem(value) {
                throw Problem(message: "--redis-sentinel must be HOST:PORT[,HOST:PORT…], not '\(value)': \(problem)")
            }
            cluster.redisSentinels = value
        case "redis-master":
            guard ClusterSettings.isValidMasterName(value) else {
                throw Problem(message: "--redis-master must be 1 to 64 letters, digits, ., - or _, not '\(value)'")
            }
            cluster.redisMaster = value
        case "redis-replicas":
            guard let count = Int(value), (0...ClusterSettings.maxRedisReplicas).contains(count) else {
                throw Problem(message: "--redis-replicas must be a number of replicas from 0 to \(ClusterSettings.maxRedisReplicas), not '\(value)'")
            }
            cluster.redisReplicas = count
        case "redis-timeout":
            guard let seconds = Double(value), seconds >= 0.1, seconds <= 10 else {
                throw Problem(message: "--redis-timeout must be a number of seconds from 0.1 to 10, not '\(value)'")
            }
            cluster.redisTimeout = seconds
        case "node-id":
            guard ClusterSettings.isValidNodeID(value) else {
                throw Problem(message: "--node-id must be 1 to 32 letters, digits, - or _, not '\(value)'")
            }
            cluster.nodeID = value
        default:
            return false
        }
        config.cluster = cluster
        return true
    }

    /// After every flag: the cluster flags need `--redis` or `--redis-sentinel` (which needs
    /// `--redis-master`), and a node without a name gets the host's and the port.
    static func checkCluster(_ config: inout ServerConfig) throws(Problem) {
        guard var cluster = config.cluster else { return }
        if cluster.redisSentinels != nil, cluster.redisMaster == nil {
            throw Problem(message: "--redis-sentinel needs --redis-master NAME (the name the Sentinels monitor)")
        }
        if cluster.redisMaster != nil, cluster.redisSentinels == nil {
            throw Problem(message: "--redis-master needs --redis-sentinel HOST:PORT[,HOST:PORT…]")
        }
        if cluster.redisSentinels != nil, !cluster.redisURL.isEmpty, let problem = ClusterSettings.sentinelURLProblem(cluster.redisURL) {
            throw Problem(message: "--redis: \(problem)")
        }
        if cluster.redisURL.isEmpty, cluster.redisSentinels == nil {
            let given = cluster.redisReplicas != 0 ? "--redis-replicas" : cluster.redisTimeout != 1 ? "--redis-timeout" : "--node-id"
            throw Problem(message: "\(given) needs --redis URL (or --redis-sentinel)")
        }
        if config.eventLoop != .uv { throw Problem(message: "--redis needs --event-loop uv (the cluster's Redis connections run on the libuv loop)") }
        if cluster.nodeID.isEmpty {
            var buffer = [CChar](repeating: 0, count: 256)
            gethostname(&buffer, buffer.count)
            let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let clean = String(host.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }.prefix(24))
            cluster.nodeID = "\(clean.isEmpty ? "node" : clean)-\(config.port)"
        }
        config.cluster = cluster
    }
}
