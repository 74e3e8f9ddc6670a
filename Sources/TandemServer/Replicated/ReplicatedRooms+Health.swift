/// The cluster's part of `/healthz` (docs/scale-out.md).
extension ReplicatedRooms {
    /// Why this node cannot serve its cluster's rooms, or `nil` (also on a single node):
    /// no primary known (Sentinel), a connection down, or delivery stalled (the probe,
    /// DeliveryProbe.swift).
    func clusterHealthProblem() -> String? {
        if let route = cluster.url.route, let master = route.master, route.primary == nil {
            return "redis: no primary known for '\(master)': \(route.unknownReason)"
        }
        if !cluster.up { return "redis unavailable: \(cluster.downReason ?? "connecting")" }
        if let problem = cluster.probe.problem { return problem }
        return nil
    }
}
