/// Several servers in one run (`tandem-bench --also-url`): the nodes of a
/// cluster, each given the same room path. A room's clients go round-robin
/// over the servers in the order given (`--url` first), its draggers too, so
/// that with two nodes half the room, and half its draggers, sit on each.
public enum ServerSpread {
    /// The server (an index into the URLs) of a room's `ordinal`-th client (from 0).
    public static func server(ofOrdinal ordinal: Int, servers: Int) -> Int {
        servers > 1 ? ordinal % servers : 0
    }

    /// `--pids 12,34,56`: the pids, or `nil` when one is not a whole number >= 1.
    public static func pids(_ text: Substring) -> [Int]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var pids: [Int] = []
        for part in parts {
            guard let pid = Int(part), pid >= 1 else { return nil }
            pids.append(pid)
        }
        return pids.isEmpty ? nil : pids
    }
}

/// One `--also-url` (or `--url`): `ws://HOST:PORT[/rooms/ID]` or `wss://…`.
public struct BenchURL: Sendable, Hashable {
    public var tls: Bool
    public var host: String
    public var port: Int
    /// The path, `""` when the URL has none (or just `/`).
    public var path: String

    /// Parses `text`; the error is a sentence for the usage message.
    public static func parse(_ text: String) -> Result<BenchURL, BenchURLError> {
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("wss://") {
            tls = true
            rest = text.dropFirst("wss://".count)
        } else if text.hasPrefix("ws://") {
            tls = false
            rest = text.dropFirst("ws://".count)
        } else {
            return .failure(BenchURLError(message: "'\(text)' must start with ws:// or wss://"))
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        var path = String(rest[slash...])
        guard !path.contains("?") else { return .failure(BenchURLError(message: "'\(text)': no query here (the one of --url goes to every server)")) }
        if path == "/" { path = "" }
        var host = String(authority)
        var port = tls ? 443 : 80
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let p = Int(authority[authority.index(after: colon)...]), p > 0, p < 65536 else {
                return .failure(BenchURLError(message: "'\(text)' has a bad port"))
            }
            port = p
        }
        guard !host.isEmpty else { return .failure(BenchURLError(message: "'\(text)' needs a host")) }
        return .success(BenchURL(tls: tls, host: host, port: port, path: path))
    }

    public init(tls: Bool, host: String, port: Int, path: String) {
        self.tls = tls
        self.host = host
        self.port = port
        self.path = path
    }
}

public struct BenchURLError: Error, Sendable, Hashable {
    public var message: String
}

/// What one server of the run carried: its clients, the updates delivered
/// to them, their latency and, with its pid, its CPU.
public struct NodeLoad: Sendable {
    public var url: String
    /// Clients connected to it (probes not counted), draggers among them.
    public var clients: Int
    public var draggers: Int
    /// Moves its clients saw in the measured window.
    public var delivered: UInt64
    /// Their latencies.
    public var latency: LatencyHistogram
    /// Its pid (the `--pid` in the same place as its URL), if given.
    public var pid: Int?
    /// Its CPU over the measured window, if its pid was given and readable.
    public var cpu: CPUUsage?

    public init(url: String, clients: Int, draggers: Int, delivered: UInt64, latency: LatencyHistogram,
                pid: Int? = nil, cpu: CPUUsage? = nil) {
        self.url = url
        self.clients = clients
        self.draggers = draggers
        self.delivered = delivered
        self.latency = latency
        self.pid = pid
        self.cpu = cpu
    }

    /// This node's CPU over the updates delivered to this node's clients, in seconds.
    public var cpuPerDeliveredUpdate: Double? { cpu?.secondsPerUpdate(delivered: delivered) }
}

/// The CPU of one `--pid` over the measured window (`nil`: unreadable).
public struct PIDUsage: Sendable, Hashable {
    public var pid: Int
    public var cpu: CPUUsage?

    public init(pid: Int, cpu: CPUUsage?) {
        self.pid = pid
        self.cpu = cpu
    }
}

extension CPUUsage {
    /// Several processes over the same window: their CPU seconds added up (a
    /// core share above 1 means more than one core's worth). `nil` when
    /// `usages` is empty.
    public static func sum(_ usages: [CPUUsage]) -> CPUUsage? {
        guard let first = usages.first else { return nil }
        return CPUUsage(seconds: usages.reduce(0) { $0 + $1.seconds }, wallSeconds: first.wallSeconds)
    }
}
