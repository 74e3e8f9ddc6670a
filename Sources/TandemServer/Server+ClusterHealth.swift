/// The cluster's part of `/healthz` (docs/scale-out.md).
extension Server {
    /// Why this node cannot serve its cluster's rooms, or `nil` (also on a single node).
    func clusterHealthProblem() -> String? {
        if let cluster, !cluster.up { return "redis unavailable: \(cluster.downReason ?? "connecting")" }
        return nil
    }
}
