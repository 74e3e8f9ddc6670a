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
    /// The delivery probe (DeliveryProbe.swift): whether it is stalled now, stalls
    /// seen, and the last round trip (seconds).
    var deliveryStalled = false
    var deliveryStalls = 0
    var probeRoundTrip: Double?
    /// With `--redis-sentinel`: the master name, its primary (`nil` while none is known),
    /// failovers followed and lookups no Sentinel answered.
    var sentinelMaster: String?
    var primary: String?
    var failovers = 0
    var sentinelLookupFailures = 0
    /// Step-downs because no renewal of the lease was granted in time.
    var leaseUnsure = 0
    /// Members' messages unanswered by the owner for 5 s, answered `unknown` by this node.
    var answersOverdue = 0
    /// `WAIT`s (`--redis-replicas`) that came back with fewer replicas than asked.
    var replicaWaitsShort = 0

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
        out.metric("tandem_cluster_lease_unsure_total", "counter",
                   "Step-downs because no renewal of a room's lease was granted in time (Redis cut off, slow, or this process paused).",
                   [("", leaseUnsure)])
        out.metric("tandem_cluster_answers_overdue_total", "counter",
                   "Relayed messages the owner did not answer in 5 s, answered 'unknown' by this node.", [("", answersOverdue)])
        out.metric("tandem_cluster_replica_waits_short_total", "counter",
                   "Turns or leases that fewer replicas than --redis-replicas confirmed in time (the owner stepped down).",
                   [("", replicaWaitsShort)])
        out.metric("tandem_cluster_delivery_stalled", "gauge",
                   "Whether this node's delivery probe is stalled: a probe published 3 s ago or more was not heard back.",
                   [("", deliveryStalled ? 1 : 0)])
        out.metric("tandem_cluster_delivery_stalls_total", "counter", "Delivery stalls the probe noticed (each reconnects the subscriber).",
                   [("", deliveryStalls)])
        out.text += "# HELP tandem_cluster_delivery_probe_seconds The delivery probe's last round trip, publish to receipt.\n"
            + "# TYPE tandem_cluster_delivery_probe_seconds gauge\ntandem_cluster_delivery_probe_seconds \(probeRoundTrip ?? 0)\n"
        if let sentinelMaster {
            let master = Self.label(sentinelMaster)
            out.metric("tandem_redis_primary_known", "gauge", "Whether a Sentinel named the primary of the master.",
                       [("{master=\"\(master)\"}", primary == nil ? 0 : 1)])
            out.metric("tandem_redis_primary_info", "gauge", "The primary this node's connections go to (1 for the current address).",
                       primary.map { [("{master=\"\(master)\",address=\"\(Self.label($0))\"}", 1)] } ?? [])
            out.metric("tandem_redis_failovers_total", "counter", "Changes of primary this node followed (Sentinel failovers).",
                       [("{master=\"\(master)\"}", failovers)])
            out.metric("tandem_redis_sentinel_lookup_failures_total", "counter", "Lookups of the primary that no Sentinel answered.",
                       [("{master=\"\(master)\"}", sentinelLookupFailures)])
        }
        return out.text
    }

    private static func label(_ text: String) -> String {
        text.replacingBackslashesAndQuotes
    }
}

extension String {
    /// A Prometheus label value: `\` and `"` escaped.
    fileprivate var replacingBackslashesAndQuotes: String {
        var out = ""
        for c in self {
            if c == "\\" || c == "\"" { out.append("\\") }
            if c == "\n" { out.append("\\n"); continue }
            out.append(c)
        }
        return out
    }
}
