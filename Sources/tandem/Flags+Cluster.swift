#if canImport(Glibc)
import Glibc
#endif
import TandemServer

extension Flags {
    static let clusterUsage = """
      --redis URL          join a cluster on this Redis (redis://[:password@]host[:port][/db]):
                           rooms, states and the commit log live in Redis, and any node
                           serves any room (docs/scale-out.md); needs --event-loop uv
      --node-id NAME       this node's name in the cluster: letters, digits, - and _, at
                           most 32 (default: the host name and the port)

    """

    /// Parses `--name value` if it is one of the cluster flags; `false` if it is not.
    static func parseCluster(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "redis":
            guard value.hasPrefix("redis://") else {
                throw Problem(message: "--redis must be a redis:// URL (redis://host:6379/0), not '\(value)'")
            }
            config.cluster = ClusterSettings(redisURL: value, nodeID: config.cluster?.nodeID ?? "")
        case "node-id":
            guard ClusterSettings.isValidNodeID(value) else {
                throw Problem(message: "--node-id must be 1 to 32 letters, digits, - or _, not '\(value)'")
            }
            config.cluster = ClusterSettings(redisURL: config.cluster?.redisURL ?? "", nodeID: value)
        default:
            return false
        }
        return true
    }

    /// After every flag: `--node-id` needs `--redis`, and a node without a name gets the host's and the port.
    static func checkCluster(_ config: inout ServerConfig) throws(Problem) {
        guard var cluster = config.cluster else { return }
        guard !cluster.redisURL.isEmpty else { throw Problem(message: "--node-id needs --redis URL") }
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
