/// The counters of cluster mode (docs/scale-out.md, "Metrics").
struct ClusterMetrics {
    /// Requests sent to rooms' owners, by kind (handled in place when this node owns the room).
    var relayed: [String: Int] = [:]
    /// Requests that reached no owner (Redis down, or nobody listening): their messages were refused with `unavailable`.
    var relayFailures = 0
    /// Publications of owned rooms, by kind, and their bytes.
    var publications: [String: Int] = [:]
    var publicationBytes = 0
    /// Publications that did not follow the previous one a view absorbed.
    var publicationGaps = 0
    /// Snapshots asked for by this node's views.
    var snapshotsAsked = 0
    /// Leases taken and lost (stepped down).
    var ownershipGained = 0
    var ownershipLost = 0

    func exposition(redisUp: Bool, owned: Int, following: Int) -> String {
        var out = PrometheusText()
        out.metric("tandem_cluster_redis_up", "gauge", "Whether both Redis connections of this node are up.", [("", redisUp ? 1 : 0)])
        out.metric("tandem_cluster_rooms_owned", "gauge", "Rooms this node owns (holds the lease of).", [("", owned)])
        out.metric("tandem_cluster_rooms_followed", "gauge", "Rooms whose publications this node's views follow.", [("", following)])
        out.metric("tandem_cluster_relayed_total", "counter", "Requests sent to rooms' owners, by kind.",
                   ["register", "leave", "message", "acknowledge", "want_snapshot"].map { ("{kind=\"\($0)\"}", relayed[$0, default: 0]) })
        out.metric("tandem_cluster_relay_failures_total", "counter",
                   "Requests that reached no owner; their messages were refused with unavailable.", [("", relayFailures)])
        out.metric("tandem_cluster_publications_total", "counter", "Publications of owned rooms, by kind.",
                   ["delta", "snapshot"].map { ("{kind=\"\($0)\"}", publications[$0, default: 0]) })
        out.metric("tandem_cluster_publication_bytes_total", "counter", "Bytes of those publications.", [("", publicationBytes)])
        out.metric("tandem_cluster_publication_gaps_total", "counter",
                   "Publications that did not follow the last one a view absorbed (the view then resyncs from a snapshot).",
                   [("", publicationGaps)])
        out.metric("tandem_cluster_snapshots_asked_total", "counter", "Snapshots this node's views asked for.", [("", snapshotsAsked)])
        out.metric("tandem_cluster_ownership_gained_total", "counter", "Room leases this node took.", [("", ownershipGained)])
        out.metric("tandem_cluster_ownership_lost_total", "counter",
                   "Room leases this node lost (fenced, Redis gone, renewal failed) and stepped down from.", [("", ownershipLost)])
        return out.text
    }
}
