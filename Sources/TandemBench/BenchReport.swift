import TandemWire

/// The latency percentiles of one stretch of a run (a second, for the progress
/// line and the picture), in nanoseconds.
public struct LatencyPoint: Sendable, Hashable {
    /// Seconds since the measured part of the run began, at the stretch's end.
    public var seconds: Double
    public var count: UInt64
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64

    public init(seconds: Double, count: UInt64, p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64) {
        self.seconds = seconds
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
    }

    /// The percentiles of `histogram`, stamped `seconds`.
    public init(seconds: Double, histogram: LatencyHistogram) {
        self.init(seconds: seconds, count: histogram.count, p50: histogram.percentile(50),
                  p90: histogram.percentile(90), p99: histogram.percentile(99),
                  p999: histogram.percentile(99.9), max: histogram.max)
    }

    /// The series in the order the picture and the JSON list them.
    static let names = ["p50", "p90", "p99", "p99.9", "max"]
    var values: [UInt64] { [p50, p90, p99, p999, max] }
}

/// The summary of a run: what was offered and delivered, how fast, how late,
/// what went wrong, and what it cost the server.
///
/// *Offered* updates are the moves sent times the receivers that should see
/// each; *delivered* are the moves receivers saw (`LatencyRecorder.delivered`).
/// The gap is what conflation folded (or what was lost).
public struct BenchReport: Sendable {
    public var scenario: String
    public var url: String
    public var clients: Int
    public var draggers: Int
    public var hz: Double
    /// The measured seconds (after warm-up).
    public var seconds: Double
    public var offered: UInt64
    public var delivered: UInt64
    /// Frames and bytes receivers read during the measured seconds.
    public var frames: UInt64
    public var bytes: UInt64
    public var connectErrors: Int
    public var rejects: Int
    /// What `StateValidator` found; a run with any is a failed run.
    public var violations: [Violation]
    public var latency: LatencyHistogram
    /// One point per second of the measured run.
    public var timeline: [LatencyPoint]
    /// The server's CPU over the measured seconds, when its pid was given.
    public var server: CPUUsage?
    /// The generator's own CPU over the measured seconds.
    public var generator: CPUUsage?
    /// How many rooms the clients were spread over.
    public var rooms = 1
    /// The share of receivers that read slowly (`--slow`), in percent.
    public var slowPercent = 0.0
    /// With slow readers: the fast and the slow receivers' latencies apart.
    public var fastLatency: LatencyHistogram?
    public var slowLatency: LatencyHistogram?
    /// Memory mode (`--idle`): the server's RSS before and after the connections.
    public var idle: IdleMemory?
    /// Delivered moves whose identity was ambiguous (`LatencyRecorder.ambiguous`).
    public var ambiguous: UInt64 = 0
    /// Per server URL (`--url`, then each `--also-url`): its clients, what they
    /// were delivered, their latency and the server's CPU when its pid was given.
    public var nodes: [NodeLoad] = []
    /// Per `--pid`: its CPU over the measured window. `server` is their sum.
    public var pids: [PIDUsage] = []

    public init(scenario: String, url: String, clients: Int, draggers: Int, hz: Double, seconds: Double,
                offered: UInt64, delivered: UInt64, frames: UInt64, bytes: UInt64,
                connectErrors: Int = 0, rejects: Int = 0, violations: [Violation] = [],
                latency: LatencyHistogram, timeline: [LatencyPoint] = [],
                server: CPUUsage? = nil, generator: CPUUsage? = nil) {
        self.scenario = scenario
        self.url = url
        self.clients = clients
        self.draggers = draggers
        self.hz = hz
        self.seconds = seconds
        self.offered = offered
        self.delivered = delivered
        self.frames = frames
        self.bytes = bytes
        self.connectErrors = connectErrors
        self.rejects = rejects
        self.violations = violations
        self.latency = latency
        self.timeline = timeline
        self.server = server
        self.generator = generator
    }

    /// The busiest the generator may be before its numbers stop meaning anything.
    public static let generatorLimit = 0.8

    /// Delivered over offered; 0 when nothing was offered.
    public var deliveredShare: Double { offered > 0 ? Double(delivered) / Double(offered) : 0 }
    public var framesPerSecond: Double { perSecond(frames) }
    public var bytesPerSecond: Double { perSecond(bytes) }
    /// Delivered updates per frame received.
    public var updatesPerFrame: Double { frames > 0 ? Double(delivered) / Double(frames) : 0 }
    /// Server CPU seconds per delivered update, when the server was measured and something was delivered.
    public var serverCPUPerUpdate: Double? { server?.secondsPerUpdate(delivered: delivered) }
    /// Whether the generator stayed below `generatorLimit` of its core (unknown counts as valid).
    public var generatorWasFast: Bool { generator.map { $0.coreShare <= Self.generatorLimit } ?? true }
    /// No violations, no connection lost, and a generator that kept up.
    public var passed: Bool { violations.isEmpty && connectErrors == 0 && generatorWasFast }

    private func perSecond(_ n: UInt64) -> Double { seconds > 0 ? Double(n) / seconds : 0 }

    // MARK: - JSON

    /// The report as a JSON value; latencies in nanoseconds, CPU in seconds
    /// and nanoseconds per update. Absent measurements are `null`.
    public var json: JSON {
        .object([
            JSONMember("scenario", .string(scenario)),
            JSONMember("url", .string(url)),
            JSONMember("clients", .number(Double(clients))),
            JSONMember("draggers", .number(Double(draggers))),
            JSONMember("rooms", .number(Double(rooms))),
            JSONMember("slowPercent", .number(slowPercent)),
            JSONMember("hz", .number(hz)),
            JSONMember("seconds", .number(seconds)),
            JSONMember("passed", .bool(passed)),
            JSONMember("valid", .bool(generatorWasFast)),
            JSONMember("updates", .object([
                JSONMember("offered", .number(Double(offered))),
                JSONMember("delivered", .number(Double(delivered))),
                JSONMember("deliveredShare", .number(deliveredShare)),
                JSONMember("perFrame", .number(updatesPerFrame)),
                JSONMember("ambiguous", .number(Double(ambiguous))),
            ])),
            JSONMember("frames", .object([
                JSONMember("count", .number(Double(frames))),
                JSONMember("perSecond", .number(framesPerSecond)),
            ])),
            JSONMember("bytes", .object([
                JSONMember("count", .number(Double(bytes))),
                JSONMember("perSecond", .number(bytesPerSecond)),
            ])),
            JSONMember("latencyNs", Self.json(latency)),
            JSONMember("fastLatencyNs", fastLatency.map(Self.json) ?? .null),
            JSONMember("slowLatencyNs", slowLatency.map(Self.json) ?? .null),
            JSONMember("connectErrors", .number(Double(connectErrors))),
            JSONMember("rejects", .number(Double(rejects))),
            JSONMember("violations", .array(violations.map { v in
                .object([JSONMember("control", v.control.map(JSON.string) ?? .null),
                         JSONMember("reason", .string(v.reason))])
            })),
            JSONMember("serverCPU", cpu(server, perUpdate: true)),
            JSONMember("generatorCPU", cpu(generator, perUpdate: false)),
            JSONMember("idle", idle.map { idle in
                .object([JSONMember("connections", .number(Double(idle.connections))),
                         JSONMember("rssBeforeBytes", .number(Double(idle.rssBefore))),
                         JSONMember("rssAfterBytes", .number(Double(idle.rssAfter))),
                         JSONMember("bytesPerConnection", .number(idle.bytesPerConnection))])
            } ?? .null),
            JSONMember("servers", .array(nodes.map { node in
                .object([JSONMember("url", .string(node.url)),
                         JSONMember("clients", .number(Double(node.clients))),
                         JSONMember("draggers", .number(Double(node.draggers))),
                         JSONMember("delivered", .number(Double(node.delivered))),
                         JSONMember("latencyNs", Self.json(node.latency)),
                         JSONMember("pid", node.pid.map { .number(Double($0)) } ?? .null),
                         JSONMember("cpu", node.cpu.map { usage in
                             .object([JSONMember("seconds", .number(usage.seconds)),
                                      JSONMember("coreShare", .number(usage.coreShare)),
                                      JSONMember("nsPerDeliveredUpdate", node.cpuPerDeliveredUpdate.map { .number($0 * 1e9) } ?? .null)])
                         } ?? .null)])
            })),
            JSONMember("serverCPUByPid", .array(pids.map { entry in
                .object([JSONMember("pid", .number(Double(entry.pid))),
                         JSONMember("seconds", entry.cpu.map { .number($0.seconds) } ?? .null),
                         JSONMember("coreShare", entry.cpu.map { .number($0.coreShare) } ?? .null)])
            })),
            JSONMember("timeline", .array(timeline.map { point in
                var members = [JSONMember("t", .number(point.seconds)), JSONMember("count", .number(Double(point.count)))]
                for (name, value) in zip(LatencyPoint.names, point.values) {
                    members.append(JSONMember(name, .number(Double(value))))
                }
                return .object(members)
            })),
        ])
    }

    /// The report as compact JSON bytes, ending in a newline.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.append(json)
        writer.append(byte: UInt8(ascii: "\n"))
        return writer.bytes
    }

    private static func json(_ latency: LatencyHistogram) -> JSON {
        .object([
            JSONMember("count", .number(Double(latency.count))),
            JSONMember("min", .number(Double(latency.min))),
            JSONMember("mean", .number(latency.mean)),
            JSONMember("p50", .number(Double(latency.percentile(50)))),
            JSONMember("p90", .number(Double(latency.percentile(90)))),
            JSONMember("p99", .number(Double(latency.percentile(99)))),
            JSONMember("p99.9", .number(Double(latency.percentile(99.9)))),
            JSONMember("max", .number(Double(latency.max))),
            JSONMember("clamped", .number(Double(latency.clampedCount))),
        ])
    }

    private func cpu(_ usage: CPUUsage?, perUpdate: Bool) -> JSON {
        guard let usage else { return .null }
        var members = [JSONMember("seconds", .number(usage.seconds)),
                       JSONMember("coreShare", .number(usage.coreShare))]
        if perUpdate {
            let ns = usage.secondsPerUpdate(delivered: delivered).map { JSON.number($0 * 1e9) } ?? .null
            members.append(JSONMember("nsPerDeliveredUpdate", ns))
        }
        return .object(members)
    }

    // MARK: - Text

    /// A line per server URL and one per pid that is no server's (with several of either).
    public var nodeLines: [String] {
        var lines: [String] = []
        for node in nodes {
            var line = "node     \(node.url): \(node.clients) clients (\(node.draggers) dragging), delivered \(Format.count(Double(node.delivered)))"
            if node.latency.count > 0 {
                line += ", p50 \(Format.duration(node.latency.percentile(50))) p99 \(Format.duration(node.latency.percentile(99)))"
            }
            if let cpu = node.cpu {
                let per = node.cpuPerDeliveredUpdate.map { Format.duration($0 * 1e9) } ?? "-"
                line += ", pid \(node.pid ?? 0) \(Format.percent(cpu.coreShare)) of a core, \(per) CPU per update delivered here"
            }
            lines.append(line)
        }
        let nodePids = Set(nodes.compactMap(\.pid))
        for entry in pids where !nodePids.contains(entry.pid) {
            lines.append("pid      \(entry.pid): " + (entry.cpu.map { "\(Format.percent($0.coreShare)) of a core" } ?? "unreadable"))
        }
        return lines
    }

    /// The summary for a person, a few lines.
    public var summary: String {
        var lines: [String] = []
        if let idle {
            lines.append("tandem-bench \(scenario): \(idle.connections) idle connections")
            lines.append("memory   server RSS \(Format.bytes(Double(idle.rssBefore))) before, \(Format.bytes(Double(idle.rssAfter))) after: \(Format.bytes(idle.bytesPerConnection)) per connection")
            lines.append("errors   \(connectErrors) connect errors")
            lines.append(passed ? "PASS" : "FAIL")
            return lines.joined(separator: "\n")
        }
        let where_ = rooms > 1 ? " in \(rooms) rooms" : ""
        lines.append("tandem-bench \(scenario): \(clients) clients\(where_), \(draggers) draggers\(rooms > 1 ? " per room" : "") at \(Format.fixed(hz, hz == hz.rounded() ? 0 : 1)) Hz, \(Format.fixed(seconds, 1)) s measured")
        lines.append("updates  offered \(Format.count(Double(offered))), delivered \(Format.count(Double(delivered))) (\(Format.percent(deliveredShare))), \(Format.fixed(updatesPerFrame, 2)) per frame")
        if ambiguous > 0 {
            lines.append("         \(Format.count(Double(ambiguous))) moves were ambiguous (receivers lagged a whole code period; counted at the larger latency)")
        }
        lines.append("traffic  \(Format.count(framesPerSecond)) frames/s, \(Format.bytes(bytesPerSecond))/s")
        lines.append("latency  p50 \(Format.duration(latency.percentile(50)))  p90 \(Format.duration(latency.percentile(90)))  p99 \(Format.duration(latency.percentile(99)))  p99.9 \(Format.duration(latency.percentile(99.9)))  max \(Format.duration(latency.max))  (\(Format.count(Double(latency.count))) samples)")
        if let fastLatency, let slowLatency {
            lines.append("fast     p50 \(Format.duration(fastLatency.percentile(50)))  p99 \(Format.duration(fastLatency.percentile(99)))  max \(Format.duration(fastLatency.max))  (\(Format.percent(1 - slowPercent / 100)) of receivers)")
            lines.append("slow     p50 \(Format.duration(slowLatency.percentile(50)))  p99 \(Format.duration(slowLatency.percentile(99)))  max \(Format.duration(slowLatency.max))  (\(Format.percent(slowPercent / 100)) of receivers)")
        }
        if let server {
            let per = serverCPUPerUpdate.map { Format.duration($0 * 1e9) } ?? "-"
            let what = pids.count > 1 ? "servers  \(pids.count) pids together:" : "server  "
            lines.append("\(what) \(Format.percent(server.coreShare)) of a core, \(per) CPU per delivered update")
        }
        if nodes.count > 1 || pids.count > 1 { lines += nodeLines }
        if let generator {
            lines.append("generator \(Format.percent(generator.coreShare)) of a core\(generatorWasFast ? "" : " — over \(Format.percent(Self.generatorLimit)): INVALID RUN")")
        }
        lines.append("errors   \(connectErrors) connect errors, \(rejects) rejects, \(violations.count) violations")
        for violation in violations.prefix(20) { lines.append("violation: \(violation)") }
        if violations.count > 20 { lines.append("  ... and \(violations.count - 20) more") }
        lines.append(passed ? "PASS" : "FAIL")
        return lines.joined(separator: "\n")
    }
}

/// What the live progress line says once a second: the last second's numbers.
public struct Progress: Sendable, Hashable {
    public var elapsed: Double
    public var connected: Int
    public var offeredPerSecond: Double
    public var deliveredPerSecond: Double
    public var framesPerSecond: Double
    public var bytesPerSecond: Double
    public var latency: LatencyPoint
    public var errors: Int
    public var rejects: Int
    public var warmingUp: Bool

    public init(elapsed: Double, connected: Int, offeredPerSecond: Double, deliveredPerSecond: Double,
                framesPerSecond: Double, bytesPerSecond: Double, latency: LatencyPoint,
                errors: Int = 0, rejects: Int = 0, warmingUp: Bool = false) {
        self.elapsed = elapsed
        self.connected = connected
        self.offeredPerSecond = offeredPerSecond
        self.deliveredPerSecond = deliveredPerSecond
        self.framesPerSecond = framesPerSecond
        self.bytesPerSecond = bytesPerSecond
        self.latency = latency
        self.errors = errors
        self.rejects = rejects
        self.warmingUp = warmingUp
    }

    /// One line, no newline:
    /// `  12s  1000 conn  23.9k/24.0k upd/s (99.6%)  8.10k fr/s  2.30 MB/s  p50 1.20 ms  p99 8.40 ms  max 12.0 ms  err 0  rej 0`.
    public var line: String {
        let share = offeredPerSecond > 0 ? Format.percent(deliveredPerSecond / offeredPerSecond) : "-"
        var text = pad(Format.fixed(elapsed, 0) + "s", 5)
        text += "  " + String(connected) + " conn"
        text += "  " + Format.count(deliveredPerSecond) + "/" + Format.count(offeredPerSecond) + " upd/s (" + share + ")"
        text += "  " + Format.count(framesPerSecond) + " fr/s"
        text += "  " + Format.bytes(bytesPerSecond) + "/s"
        if latency.count > 0 {
            text += "  p50 " + Format.duration(latency.p50) + "  p99 " + Format.duration(latency.p99)
            text += "  max " + Format.duration(latency.max)
        } else {
            text += "  no samples"
        }
        text += "  err " + String(errors) + "  rej " + String(rejects)
        if warmingUp { text += "  (warm-up)" }
        return text
    }

    private func pad(_ s: String, _ width: Int) -> String {
        String(repeating: " ", count: Swift.max(0, width - s.count)) + s
    }
}

/// The server's resident memory around a run of idle connections (`--idle`).
public struct IdleMemory: Sendable, Hashable {
    public var connections: Int
    public var rssBefore: Int64
    public var rssAfter: Int64

    public init(connections: Int, rssBefore: Int64, rssAfter: Int64) {
        self.connections = connections
        self.rssBefore = rssBefore
        self.rssAfter = rssAfter
    }

    /// What each connection added to the server's RSS, in bytes.
    public var bytesPerConnection: Double {
        connections > 0 ? Double(rssAfter - rssBefore) / Double(connections) : 0
    }
}
