import Testing
import TandemBench
import TandemWire

@Suite("The bench report")
struct BenchReportTests {
    static func sampleReport(latencies: ClosedRange<UInt64> = 1...10_000, seconds: Int = 10) -> BenchReport {
        var total = LatencyHistogram()
        var timeline: [LatencyPoint] = []
        for s in 1...seconds {
            var h = LatencyHistogram()
            for v in latencies { h.record(v * 1_000 + UInt64(s) * 10_000) }
            total.merge(h)
            timeline.append(LatencyPoint(seconds: Double(s), histogram: h))
        }
        return BenchReport(scenario: "S2 <1000 & 4>", url: "ws://127.0.0.1:8080/rooms/bench",
                           clients: 1_000, draggers: 4, hz: 60, seconds: Double(seconds),
                           offered: 2_400_000, delivered: 2_376_000, frames: 600_000, bytes: 90_000_000,
                           connectErrors: 2, rejects: 1, latency: total, timeline: timeline,
                           server: CPUUsage(seconds: 3, wallSeconds: 10),
                           generator: CPUUsage(seconds: 5, wallSeconds: 10))
    }

    @Test("the JSON round-trips through JSONParser with the expected fields")
    func jsonRoundTrip() throws {
        let report = Self.sampleReport()
        let json = try JSONParser.parse(report.jsonBytes)
        #expect(json["scenario"] == "S2 <1000 & 4>")
        #expect(json["clients"] == 1_000 && json["draggers"] == 4 && json["hz"] == 60 && json["seconds"] == 10)
        // Two connections failed: the run fails, though the generator kept up.
        #expect(json["passed"] == false && json["valid"] == true)
        #expect(json["rooms"] == 1 && json["slowPercent"] == 0)
        #expect(json["fastLatencyNs"] == .null && json["slowLatencyNs"] == .null && json["idle"] == .null)
        #expect(json["updates"]?["offered"] == 2_400_000)
        #expect(json["updates"]?["delivered"] == 2_376_000)
        #expect(json["updates"]?["deliveredShare"] == 0.99)
        #expect(json["frames"]?["perSecond"] == 60_000)
        #expect(json["bytes"]?["perSecond"] == 9_000_000)
        #expect(json["connectErrors"] == 2 && json["rejects"] == 1)
        #expect(json["violations"] == .array([]))
        let latency = try #require(json["latencyNs"])
        for key in ["count", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "clamped"] {
            #expect(latency[key]?.numberValue != nil, "latencyNs.\(key)")
        }
        #expect(latency["max"] == .number(Double(report.latency.max)))
        #expect(latency["p99"] == .number(Double(report.latency.percentile(99))))
        #expect(json["serverCPU"]?["coreShare"] == 0.3)
        // 3 s of CPU over 2,376,000 deliveries.
        let ns = try #require(json["serverCPU"]?["nsPerDeliveredUpdate"]?.numberValue)
        #expect((ns - 3e9 / 2_376_000).magnitude < 1e-6)
        #expect(json["generatorCPU"]?["coreShare"] == 0.5)
        #expect(json["timeline"]?.arrayValue?.count == 10)
        #expect(json["timeline"]?.arrayValue?.first?["p99.9"]?.numberValue != nil)
    }

    @Test("missing measurements are null, and a busy generator or a violation fails the run")
    func nullsAndFailures() throws {
        var report = Self.sampleReport()
        report.server = nil
        report.generator = CPUUsage(seconds: 9, wallSeconds: 10)
        var json = try JSONParser.parse(report.jsonBytes)
        #expect(json["serverCPU"] == .null)
        #expect(json["passed"] == false)
        #expect(report.summary.contains("INVALID RUN"))
        report.generator = nil
        report.violations = [Violation(control: "gain", reason: "value off the step grid")]
        json = try JSONParser.parse(report.jsonBytes)
        #expect(json["passed"] == false)
        #expect(json["violations"]?.arrayValue?.first?["control"] == "gain")
        #expect(report.summary.contains("violation: gain: value off the step grid"))
        #expect(report.summary.hasSuffix("FAIL"))
    }

    @Test("an empty run writes finite JSON")
    func emptyRun() throws {
        let report = BenchReport(scenario: "idle", url: "ws://x/rooms/demo", clients: 0, draggers: 0, hz: 60,
                                 seconds: 0, offered: 0, delivered: 0, frames: 0, bytes: 0,
                                 latency: LatencyHistogram())
        let json = try JSONParser.parse(report.jsonBytes)
        #expect(json["frames"]?["perSecond"] == 0)
        #expect(json["updates"]?["deliveredShare"] == 0)
        #expect(json["latencyNs"]?["max"] == 0)
    }

    @Test("the progress line is one line with the second's numbers")
    func progressLine() {
        var h = LatencyHistogram()
        for v: UInt64 in 1...1_000 { h.record(v * 10_000) }
        let progress = Progress(elapsed: 12, connected: 1_000, offeredPerSecond: 240_000, deliveredPerSecond: 239_000,
                                framesPerSecond: 60_000, bytesPerSecond: 9_000_000,
                                latency: LatencyPoint(seconds: 12, histogram: h), errors: 0, rejects: 3)
        let line = progress.line
        #expect(!line.contains("\n"))
        #expect(line.hasPrefix("  12s  1000 conn"))
        #expect(line.contains("239k/240k upd/s (99.6%)"))
        #expect(line.contains("60.0k fr/s"))
        #expect(line.contains("9.00 MB/s"))
        #expect(line.contains("p50 5.00 ms"))
        #expect(line.contains("p99 9.90 ms"))
        #expect(line.contains("max 10.0 ms"))
        #expect(line.hasSuffix("err 0  rej 3"))
        var idle = progress
        idle.latency = LatencyPoint(seconds: 1, histogram: LatencyHistogram())
        idle.warmingUp = true
        #expect(idle.line.contains("no samples") && idle.line.hasSuffix("(warm-up)"))
    }

    @Test("numbers are formatted for people without Foundation")
    func formatting() {
        #expect(Format.fixed(1.25, 1) == "1.3")
        #expect(Format.fixed(-2.5, 0) == "-3")
        #expect(Format.fixed(0.04, 1) == "0.0")
        #expect(Format.fixed(12.345, 1) == "12.3")
        #expect(Format.fixed(.nan, 2) == "-")
        #expect(Format.duration(850.0) == "850 ns")
        #expect(Format.duration(12_345.0) == "12.3 µs")
        #expect(Format.duration(1_250_000.0) == "1.25 ms")
        #expect(Format.duration(2_000_000_000.0) == "2.00 s")
        #expect(Format.count(950) == "950")
        #expect(Format.count(23_900) == "23.9k")
        #expect(Format.count(1_200_000) == "1.20M")
        #expect(Format.bytes(1_500) == "1.50 kB")
        #expect(Format.percent(0.996) == "99.6%")
    }
}

@Suite("Reading /proc/PID/stat and the CPU per delivered update")
struct ProcStatTests {
    /// A real line's shape (from proc(5)), with utime 1500, stime 250, 1 thread, rss 2345 pages.
    static func line(pid: Int = 4242, comm: String = "tandem", utime: Int = 1500, stime: Int = 250) -> String {
        "\(pid) (\(comm)) S 1 4242 4242 0 -1 4194560 1834 0 0 0 \(utime) \(stime) 0 0 20 0 1 0 123456 65536000 2345 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 0 0 0 0 0 0\n"
    }

    @Test("a plain line parses into its fields")
    func plain() throws {
        let stat = try #require(ProcStat(parsing: Self.line()))
        #expect(stat.pid == 4242 && stat.comm == "tandem" && stat.state == "S")
        #expect(stat.utime == 1500 && stat.stime == 250 && stat.cpuTicks == 1750)
        #expect(stat.threads == 1 && stat.rssPages == 2345)
    }

    @Test("a comm with spaces and parentheses is read up to the last ')'")
    func oddComm() throws {
        for comm in ["my server", "a) b (c", "((x))", ") S 1 2 3", "tandem bench)"] {
            let stat = try #require(ProcStat(parsing: Self.line(comm: comm)), "\(comm)")
            #expect(stat.comm == comm)
            #expect(stat.utime == 1500 && stat.stime == 250 && stat.rssPages == 2345)
        }
    }

    @Test("what is not a stat line is nil")
    func refused() {
        for text in ["", "4242 tandem S 1", "4242 (tandem) S 1 2 3", "x (tandem)" + Self.line().drop(while: { $0 != ")" }).dropFirst(),
                     Self.line().replacing("1500", with: "lots")] {
            #expect(ProcStat(parsing: String(text)) == nil, "\(text)")
        }
    }

    @Test("CPU per delivered update: tick delta over ticks per second over deliveries")
    func cpuPerUpdate() throws {
        let before = try #require(ProcStat(parsing: Self.line(utime: 1000, stime: 200)))
        let after = try #require(ProcStat(parsing: Self.line(utime: 1300, stime: 260)))
        // 360 ticks at 100 Hz = 3.6 s over 2.4 M deliveries = 1.5 µs each.
        let perUpdate = try #require(CPUUsage.perUpdate(from: before, to: after, ticksPerSecond: 100, delivered: 2_400_000))
        #expect((perUpdate - 1.5e-6).magnitude < 1e-15)
        let usage = try #require(CPUUsage(from: before, to: after, ticksPerSecond: 100, wallSeconds: 10))
        #expect(usage.seconds == 3.6)
        #expect((usage.coreShare - 0.36).magnitude < 1e-12)
        // Nothing delivered, time going backwards, another process, bad rates: no answer.
        #expect(CPUUsage.perUpdate(from: before, to: after, ticksPerSecond: 100, delivered: 0) == nil)
        #expect(CPUUsage.perUpdate(from: after, to: before, ticksPerSecond: 100, delivered: 10) == nil)
        let other = try #require(ProcStat(parsing: Self.line(pid: 7, utime: 1300, stime: 260)))
        #expect(CPUUsage.perUpdate(from: before, to: other, ticksPerSecond: 100, delivered: 10) == nil)
        #expect(CPUUsage.perUpdate(from: before, to: after, ticksPerSecond: 0, delivered: 10) == nil)
    }

    @Test("slow readers' and idle connections' numbers reach the JSON and the summary")
    func slowAndIdle() throws {
        var report = BenchReportTests.sampleReport()
        report.connectErrors = 0
        #expect(report.passed)
        var fast = LatencyHistogram()
        fast.record(2_000_000)
        var slow = LatencyHistogram()
        slow.record(300_000_000)
        report.slowPercent = 20
        report.fastLatency = fast
        report.slowLatency = slow
        var json = try JSONParser.parse(report.jsonBytes)
        #expect(json["slowPercent"] == 20)
        #expect(json["fastLatencyNs"]?["max"] == .number(Double(fast.max)))
        #expect(json["slowLatencyNs"]?["count"] == 1)
        #expect(report.summary.contains("fast     p50 2.00 ms"))
        #expect(report.summary.contains("(20.0% of receivers)"))

        report.idle = IdleMemory(connections: 1_000, rssBefore: 10_000_000, rssAfter: 14_096_000)
        #expect(report.idle?.bytesPerConnection == 4_096)
        json = try JSONParser.parse(report.jsonBytes)
        #expect(json["idle"]?["connections"] == 1_000)
        #expect(json["idle"]?["bytesPerConnection"] == 4_096)
        #expect(json["idle"]?["rssAfterBytes"] == 14_096_000)
        #expect(report.summary.contains("1,000 idle connections") || report.summary.contains("1000 idle connections"))
    }
}
