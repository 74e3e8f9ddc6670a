#if canImport(Glibc)
import Glibc
#endif
import TandemBench
import TandemCore
import TandemWire

/// CPU seconds this process has used (user plus system).
func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// `/proc/PID/stat` of the server, if readable.
func readProcStat(_ pid: Int) -> ProcStat? {
    let fd = open("/proc/\(pid)/stat", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { return nil }
    return ProcStat(parsing: String(decoding: buffer[0..<n], as: UTF8.self))
}

/// One run: room set-up, ramp, warm-up, measurement, end, final comparison, report.
final class Scenario {
    let flags: Flags
    let generator: Generator
    let tty = isatty(1) != 0

    private var startedAt: UInt64 = 0
    /// When the draggers' schedules start (after the ramp); 0 before.
    private var scheduleStart: UInt64 = 0
    private var lastAttempt: UInt64 = 0
    private var attempted = 0
    private var nextSecond = 0
    private var measureStart: UInt64 = 0
    private var measureEnd: UInt64 = 0
    private var closeAt: UInt64 = 0
    private var finishBy: UInt64 = 0
    private var measured = LatencyHistogram()
    private var timeline: [LatencyPoint] = []
    private var base = (frames: UInt64(0), bytes: UInt64(0), offered: UInt64(0), delivered: UInt64(0))
    private var last = (frames: UInt64(0), bytes: UInt64(0), offered: UInt64(0), delivered: UInt64(0))
    private var final = (frames: UInt64(0), bytes: UInt64(0), offered: UInt64(0), delivered: UInt64(0))
    private var cpuBefore = 0.0
    private var serverBefore: ProcStat?
    private var generatorUsage: CPUUsage?
    private var serverUsage: CPUUsage?

    init(flags: Flags) throws(HTTP.Failure) {
        self.flags = flags
        generator = try Generator(flags: flags)
        for i in 0..<flags.clients {
            generator.clients.append(Client(index: i, slider: i < flags.draggers ? i : -1))
        }
    }

    /// Creates the bench room of `--draggers` sliders (replacing one of the same id).
    static func createRoom(_ flags: Flags) throws(HTTP.Failure) {
        // POST replaces a room of the same id: only ever replace an earlier bench room.
        let existing = try HTTP.request(host: flags.host, port: flags.port, method: "GET", path: "/api/rooms/\(flags.room)")
        if existing.status == 200 {
            let title = (try? JSONParser.parse(existing.body))?["title"]?.stringValue
            guard title == "tandem-bench" else {
                throw HTTP.Failure(description: "room '\(flags.room)' exists and is not a tandem-bench room; pick another id in --url (the bench replaces the room it drags)")
            }
        }
        let body = MoveCode.roomJSON(id: flags.room, sliders: flags.draggers)
        var response = try HTTP.request(host: flags.host, port: flags.port, method: "POST", path: "/api/rooms", body: body)
        if response.status == 409 {
            let deleted = try HTTP.request(host: flags.host, port: flags.port, method: "DELETE", path: "/api/rooms/\(flags.room)")
            guard deleted.status == 204 || deleted.status == 200 else {
                throw HTTP.Failure(description: "room '\(flags.room)' exists and cannot be replaced: DELETE answered \(deleted.status) \(String(decoding: deleted.body, as: UTF8.self))")
            }
            response = try HTTP.request(host: flags.host, port: flags.port, method: "POST", path: "/api/rooms", body: body)
        }
        guard response.status == 201 || response.status == 200 else {
            throw HTTP.Failure(description: "POST /api/rooms answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    private var counters: (frames: UInt64, bytes: UInt64, offered: UInt64, delivered: UInt64) {
        (generator.frames, generator.bytes, generator.offered, generator.recorder.delivered)
    }

    /// Runs the event loop through every phase; returns when the connections are closed.
    func run() {
        startedAt = monotonicNow()
        generator.onTick = { [unowned self] in self.tick() }
        generator.run()
        generator.shutdown()
    }

    private func tick() {
        let now = monotonicNow()
        // Ramp: connections at --ramp per second.
        if attempted < flags.clients {
            let target = min(flags.clients, Int(Double(now - startedAt) / 1e9 * flags.ramp) + 1)
            while attempted < target {
                generator.connect(generator.clients[attempted])
                attempted += 1
                lastAttempt = now
            }
            return
        }
        if scheduleStart == 0 {
            let settled = generator.connected + generator.connectErrors >= flags.clients
            let draggersReady = generator.clients.prefix(flags.draggers).allSatisfy { $0.begun || !$0.open }
            guard (settled && draggersReady) || now - lastAttempt > 10_000_000_000 else { return }
            scheduleStart = now + 100_000_000
            let K = max(1, flags.draggers)
            for k in 0..<flags.draggers {
                // Staggered so the draggers' moves do not all fall due together.
                let schedule = OpenLoopSchedule(start: scheduleStart + UInt64(Double(k) * 1e9 / (flags.hz * Double(K))), hz: flags.hz)
                generator.schedules.append(schedule)
                generator.recorder.addMover(control: MoveCode.sliderID(k), schedule: schedule)
            }
            measureStart = scheduleStart + UInt64(flags.warmup * 1e9)
            measureEnd = measureStart + UInt64(flags.duration * 1e9)
            last = counters
            return
        }
        // Draggers: ask to write when a move is due.
        if now >= scheduleStart, closeAt == 0 {
            for k in 0..<flags.draggers {
                let client = generator.clients[k]
                if client.open, !client.ended, generator.schedules[k].movesDue(at: now) > client.nextMove {
                    generator.requestWrite(client)
                }
            }
        }
        // Once a second from the schedule's start: progress line, timeline point.
        let secondAt = scheduleStart + UInt64(nextSecond + 1) * 1_000_000_000
        if now >= secondAt, closeAt == 0 {
            nextSecond += 1
            let interval = generator.recorder.takeInterval()
            let c = counters
            let warming = !generator.measuring
            if generator.measuring {
                measured.merge(interval)
                timeline.append(LatencyPoint(seconds: Double(now - measureStart) / 1e9, histogram: interval))
            }
            if tty {
                let progress = Progress(elapsed: Double(now - scheduleStart) / 1e9, connected: generator.connected,
                                        offeredPerSecond: Double(c.offered - last.offered),
                                        deliveredPerSecond: Double(c.delivered - last.delivered),
                                        framesPerSecond: Double(c.frames - last.frames),
                                        bytesPerSecond: Double(c.bytes - last.bytes),
                                        latency: LatencyPoint(seconds: Double(nextSecond), histogram: interval),
                                        errors: generator.connectErrors + generator.droppedConnections,
                                        rejects: generator.rejects, warmingUp: warming)
                print(progress.line)
            }
            last = c
        }
        if !generator.measuring, measureEnd == 0 || now < measureEnd, now >= measureStart, closeAt == 0 {
            // Warm-up over: measure from here.
            _ = generator.recorder.takeInterval()
            generator.measuring = true
            base = counters
            cpuBefore = ownCPUSeconds()
            serverBefore = flags.pid.flatMap(readProcStat)
            return
        }
        if generator.measuring, now >= measureEnd {
            generator.measuring = false
            final = counters
            let interval = generator.recorder.takeInterval()
            measured.merge(interval)
            if interval.count > 0 { timeline.append(LatencyPoint(seconds: Double(now - measureStart) / 1e9, histogram: interval)) }
            let wall = Double(now - measureStart) / 1e9
            generatorUsage = CPUUsage(seconds: ownCPUSeconds() - cpuBefore, wallSeconds: wall)
            if let pid = flags.pid, let before = serverBefore, let after = readProcStat(pid) {
                serverUsage = CPUUsage(from: before, to: after, ticksPerSecond: sysconf(Int32(_SC_CLK_TCK)), wallSeconds: wall)
            }
            for client in generator.clients.prefix(flags.draggers) where client.open {
                client.wantsEnd = true
                generator.requestWrite(client)
            }
            closeAt = now + 1_000_000_000
            return
        }
        if closeAt > 0, now >= closeAt, finishBy == 0 {
            generator.closingAll = true
            for client in generator.clients where client.open { generator.requestWrite(client) }
            finishBy = now + 2_000_000_000
            return
        }
        if finishBy > 0, generator.connected == 0 || now >= finishBy {
            generator.done = true
        }
    }

    /// The report: counters of the measured window and the final comparison with the server.
    func report() -> BenchReport {
        var violations = generator.violations
        if generator.violationCount > violations.count {
            violations.append(Violation(control: nil, reason: "\(generator.violationCount - violations.count) more violations not kept"))
        }
        do {
            let snapshot = try HTTP.request(host: flags.host, port: flags.port, method: "GET", path: "/api/rooms/\(flags.room)")
            if snapshot.status != 200 {
                violations.append(Violation(control: nil, reason: "GET /api/rooms/\(flags.room) answered \(snapshot.status)"))
            } else if let validator = generator.validator {
                let json = try JSONParser.parse(snapshot.body)
                var differing = 0
                for client in generator.clients {
                    guard let view = client.view else { continue }
                    let found = validator.compare(view, withSnapshot: json)
                    if !found.isEmpty {
                        differing += 1
                        if differing <= 3 { violations += found.map { Violation(control: $0.control, reason: "client \(client.index): \($0.reason)") } }
                    }
                }
                if differing > 3 {
                    violations.append(Violation(control: nil, reason: "\(differing) clients in all differ from the server's state"))
                }
            }
        } catch {
            violations.append(Violation(control: nil, reason: "final comparison: \(error)"))
        }
        let seconds = measureStart > 0 && measureEnd > measureStart ? Double(measureEnd - measureStart) / 1e9 : 0
        return BenchReport(
            scenario: "\(flags.clients)x\(flags.draggers)@\(Format.fixed(flags.hz, 0))Hz",
            url: flags.url, clients: flags.clients, draggers: flags.draggers, hz: flags.hz, seconds: seconds,
            offered: final.offered &- base.offered, delivered: final.delivered &- base.delivered,
            frames: final.frames &- base.frames, bytes: final.bytes &- base.bytes,
            connectErrors: generator.connectErrors + generator.droppedConnections, rejects: generator.rejects,
            violations: violations, latency: measured, timeline: timeline,
            server: serverUsage, generator: generatorUsage)
    }
}
