import Testing
import TandemBench
import TandemWire

@Suite("Clients over several servers (--also-url, several --pid)")
struct ServerSpreadTests {
    @Test("a room's clients, its first ones (the draggers) too, go round-robin over the servers")
    func roundRobin() {
        #expect((0..<6).map { ServerSpread.server(ofOrdinal: $0, servers: 2) } == [0, 1, 0, 1, 0, 1])
        #expect((0..<4).map { ServerSpread.server(ofOrdinal: $0, servers: 3) } == [0, 1, 2, 0])
        #expect((0..<3).map { ServerSpread.server(ofOrdinal: $0, servers: 1) } == [0, 0, 0])
        #expect(ServerSpread.server(ofOrdinal: 5, servers: 0) == 0)
        // Four draggers over two nodes: two on each.
        let draggers = (0..<4).map { ServerSpread.server(ofOrdinal: $0, servers: 2) }
        #expect(draggers.filter { $0 == 1 }.count == 2)
    }

    @Test("--pids takes a comma-separated list of whole numbers >= 1")
    func pids() {
        #expect(ServerSpread.pids("12,34,5") == [12, 34, 5])
        #expect(ServerSpread.pids("7") == [7])
        #expect(ServerSpread.pids("") == nil)
        #expect(ServerSpread.pids("1,,2") == nil)
        #expect(ServerSpread.pids("1,x") == nil)
        #expect(ServerSpread.pids("0") == nil)
        #expect(ServerSpread.pids("-3") == nil)
    }

    @Test("--also-url: ws:// or wss://, a host, a port, a path or none, no query")
    func urls() throws {
        #expect(try BenchURL.parse("ws://127.0.0.1:9001").get() == BenchURL(tls: false, host: "127.0.0.1", port: 9001, path: ""))
        #expect(try BenchURL.parse("ws://127.0.0.1:9001/").get().path == "")
        #expect(try BenchURL.parse("wss://node2/rooms/demo").get() == BenchURL(tls: true, host: "node2", port: 443, path: "/rooms/demo"))
        #expect(try BenchURL.parse("ws://node2").get().port == 80)
        for bad in ["http://x:1", "ws://:80", "ws://x:0", "ws://x:70000", "ws://x:y", "ws://x:1/rooms/demo?name=a"] {
            #expect(throws: BenchURLError.self, "\(bad)") { try BenchURL.parse(bad).get() }
        }
    }

    @Test("CPU summed over processes of one window")
    func sum() throws {
        let total = try #require(CPUUsage.sum([CPUUsage(seconds: 3, wallSeconds: 10), CPUUsage(seconds: 2, wallSeconds: 10)]))
        #expect(total.seconds == 5 && total.wallSeconds == 10 && total.coreShare == 0.5)
        #expect(CPUUsage.sum([]) == nil)
    }

    static func report() -> BenchReport {
        var owner = LatencyHistogram()
        var other = LatencyHistogram()
        for v in 1...100 { owner.record(UInt64(v) * 100_000); other.record(UInt64(v) * 200_000) }
        var report = BenchReport(scenario: "504x4@60Hz", url: "ws://127.0.0.1:9001/rooms/demo",
                                 clients: 504, draggers: 4, hz: 60, seconds: 10,
                                 offered: 1_000_000, delivered: 900_000, frames: 300_000, bytes: 1,
                                 latency: owner, server: CPUUsage(seconds: 6, wallSeconds: 10),
                                 generator: CPUUsage(seconds: 5, wallSeconds: 10))
        report.nodes = [
            NodeLoad(url: "ws://127.0.0.1:9001/rooms/demo", clients: 252, draggers: 2, delivered: 500_000, latency: owner,
                     pid: 11, cpu: CPUUsage(seconds: 3, wallSeconds: 10)),
            NodeLoad(url: "ws://127.0.0.1:9002", clients: 252, draggers: 2, delivered: 400_000, latency: other,
                     pid: 22, cpu: CPUUsage(seconds: 2, wallSeconds: 10)),
        ]
        report.pids = [PIDUsage(pid: 11, cpu: CPUUsage(seconds: 3, wallSeconds: 10)),
                       PIDUsage(pid: 22, cpu: CPUUsage(seconds: 2, wallSeconds: 10)),
                       PIDUsage(pid: 33, cpu: CPUUsage(seconds: 1, wallSeconds: 10))]
        return report
    }

    @Test("the JSON lists each server's clients, deliveries, latency and CPU per update delivered there, and each pid's CPU")
    func json() throws {
        let report = Self.report()
        let json = try JSONParser.parse(report.jsonBytes)
        let servers = try #require(json["servers"]?.arrayValue)
        #expect(servers.count == 2)
        #expect(servers[0]["url"] == "ws://127.0.0.1:9001/rooms/demo" && servers[1]["url"] == "ws://127.0.0.1:9002")
        #expect(servers[0]["clients"] == 252 && servers[0]["draggers"] == 2 && servers[0]["delivered"] == 500_000)
        #expect(servers[1]["pid"] == 22 && servers[1]["cpu"]?["coreShare"] == 0.2)
        // That node's CPU over the updates delivered to that node's clients: 2 s / 400,000 = 5 µs.
        let ns = try #require(servers[1]["cpu"]?["nsPerDeliveredUpdate"]?.numberValue)
        #expect((ns - 5_000).magnitude < 1e-6)
        #expect(servers[1]["latencyNs"]?["p50"] == .number(Double(report.nodes[1].latency.percentile(50))))
        let pids = try #require(json["serverCPUByPid"]?.arrayValue)
        #expect(pids.map { $0["pid"] } == [11, 22, 33])
        #expect(pids[2]["seconds"] == 1 && pids[2]["coreShare"] == 0.1)
        // The single-server fields stay where bench/run.py reads them: the sum of the pids here.
        #expect(json["serverCPU"]?["coreShare"] == 0.6)
        let summed = try #require(json["serverCPU"]?["nsPerDeliveredUpdate"]?.numberValue)
        #expect((summed - 6e9 / 900_000).magnitude < 1e-6)
    }

    @Test("a server without a pid has no CPU; an unreadable pid is null")
    func missing() throws {
        var report = Self.report()
        report.nodes[1].pid = nil
        report.nodes[1].cpu = nil
        report.pids = [PIDUsage(pid: 11, cpu: nil)]
        let json = try JSONParser.parse(report.jsonBytes)
        #expect(json["servers"]?.arrayValue?[1]["pid"] == .null && json["servers"]?.arrayValue?[1]["cpu"] == .null)
        #expect(json["serverCPUByPid"]?.arrayValue?[0]["seconds"] == .null)
    }

    @Test("the summary has a line per server and one per pid that is no server's")
    func summary() {
        let lines = Self.report().summary.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("servers  3 pids together: 60.0% of a core") })
        let nodes = lines.filter { $0.hasPrefix("node ") }
        #expect(nodes.count == 2)
        #expect(nodes[1].contains("ws://127.0.0.1:9002: 252 clients (2 dragging), delivered"))
        #expect(nodes[1].contains("pid 22") && nodes[1].contains("per update delivered here"))
        #expect(lines.contains { $0.hasPrefix("pid      33: 10.0% of a core") })
    }

    @Test("a single-server report keeps its old summary and JSON fields")
    func single() throws {
        var report = Self.report()
        report.nodes = [report.nodes[0]]
        report.pids = [report.pids[0]]
        #expect(!report.summary.contains("node "))
        #expect(report.summary.contains("server   60.0% of a core"))
        let json = try JSONParser.parse(report.jsonBytes)
        #expect(json["serverCPU"]?["coreShare"] == 0.6)
    }
}
