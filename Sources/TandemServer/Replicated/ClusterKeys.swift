/// Where a cluster keeps things in Redis and what its channels are called
/// (docs/scale-out.md, "Redis keys"). A room's keys share the hash tag
/// `{ROOM}`, so that they live on one shard if Redis is ever sharded, and a
/// script may touch them together.
enum ClusterKeys {
    /// Every room id (a set).
    static let rooms = "tandem:rooms"
    /// Room lifecycle: `created ROOM`, `replaced ROOM`, `deleted ROOM`.
    static let lifecycle = "tandem:lifecycle"
    /// The nodes' heartbeats: `tandem:node:ID`, a hash that expires.
    static func node(_ id: String) -> String { "tandem:node:\(id)" }
    /// The names of nodes that ever joined (a set; their heartbeats say which are alive).
    static let nodes = "tandem:nodes"

    /// The room's schema, revision and committed states (a hash):
    /// `schema`, `revision`, and per control `s:ID` (state), `r:ID` (revision), `b:ID` (who).
    static func room(_ id: String) -> String { "tandem:{\(id)}:room" }
    /// The room's commit log (a stream; entry ids `REVISION-N`).
    static func log(_ id: String) -> String { "tandem:{\(id)}:log" }
    /// The room's presets (a hash: name → preset JSON).
    static func presets(_ id: String) -> String { "tandem:{\(id)}:presets" }
    /// Who owns the room: `NODE EPOCH`, with a TTL (the lease).
    static func lease(_ id: String) -> String { "tandem:{\(id)}:lease" }
    /// The room's last lease epoch (a counter; never goes back).
    static func epoch(_ id: String) -> String { "tandem:{\(id)}:epoch" }
    /// Requests to the owner.
    static func inbox(_ id: String) -> String { "tandem:{\(id)}:in" }
    /// The owner's publications.
    static func outbox(_ id: String) -> String { "tandem:{\(id)}:out" }
}
