/// Cluster mode (`--redis URL`, docs/scale-out.md): this node shares its
/// rooms with every other node on the same Redis.
public struct ClusterSettings: Sendable, Hashable {
    /// `redis://[:password@]host[:port][/db]`.
    public var redisURL: String
    /// This node's name in the cluster (`--node-id`): in `/api/cluster`, the
    /// logs, room leases and its members' client ids. Unique per node.
    public var nodeID: String
    /// How long a room's lease lasts without renewal: when its owner dies, a
    /// node with members in the room takes over after at most this long.
    public var lease: Double = 1.5

    public init(redisURL: String, nodeID: String) {
        self.redisURL = redisURL
        self.nodeID = nodeID
    }

    /// Whether `id` can name a node: 1 to 32 letters, digits, `-` or `_`
    /// (it goes into client ids, Redis keys and log lines).
    public static func isValidNodeID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 32 && id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }
}
