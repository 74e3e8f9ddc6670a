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

/// The server's resident set, in bytes, from `/proc/PID/stat`.
func serverRSS(_ pid: Int) -> Int64? {
    readProcStat(pid).map { $0.rssPages * Int64(sysconf(Int32(_SC_PAGESIZE))) }
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
    private var probeAt: UInt64 = 0
    private var closeAt: UInt64 = 0
    private var finishBy: UInt64 = 0
    private var timeline: [LatencyPoint] = []
    private var base = (frames: UInt64(0), bytes: UInt64(0), offered: UInt64(0), delivered: UInt64(0))
    private var last = (frames: UInt64(0), bytes: UInt64(0), offered: UInt64(0), delivered: UInt64(0))
    private var final = (frames: UInt64(0), bytes: UInt64(0), offered: UInt64(0), delivered: UInt64(0))
    private var cpuBefore = 0.0
    /// Per `--pid`: its reading at the window's start, and its CPU over the window.
    private var serverBefore: [ProcStat?] = []
    private var generatorUsage: CPUUsage?
    private var pidUsages: [PIDUsage] = []
    /// Per server URL: moves its clients saw at the window's start and end, and their latencies.
    private var baseByServer: [UInt64] = []
    private var finalByServer: [UInt64] = []
    private var latencyByServer: [LatencyHistogram] = []
    private var measuredLatency = LatencyHistogram()
    private var fastLatency = LatencyHistogram()
    private var slowLatency = LatencyHistogram()
    private var slowReading = true
    private var ambiguous: UInt64 = 0
    private var setupFailure: String?
    private var idle: IdleMemory?
    private var rssBefore: Int64 = 0
    private var settledAt: UInt64 = 0
    private let probes: Int
    /// The clients that drag (the 1 ms tick looks only at them).
    private var draggers: [Client] = []

    init(flags: Flags) throws(HTTP.Failure) {
        self.flags = flags
        generator = try Generator(flags: flags)
        var receivers = 0
        var perRoom = Array(repeating: 0, count: flags.rooms)
        for i in 0..<flags.clients {
            let room = i % flags.rooms
            let ordinal = perRoom[room]
            perRoom[room] += 1
            let slot = ordinal < flags.draggers ? ordinal : -1
            let server = ServerSpread.server(ofOrdinal: ordinal, servers: flags.servers.count)
            var slow = false
            if slot < 0 {
                // Spread evenly: receiver j is slow when floor(j*P/100) steps up at j.
                slow = Int(Double(receivers + 1) * flags.slow / 100) > Int(Double(receivers) * flags.slow / 100)
                receivers += 1
            }
            generator.clients.append(Client(index: i, room: room, slot: slot, slow: slow, server: server))
        }
        probes = flags.idle ? 0 : flags.rooms
        for r in 0..<probes {
            generator.clients.append(Client(index: flags.clients + r, room: r, slot: -1, slow: false, probe: true))
        }
    }

    /// Makes sure every room of the run exists with enough thumbs for the
    /// draggers: a room that has them is used as it is; otherwise the bench
    /// creates (or replaces an earlier bench room with) a room of sliders.
    /// A server without the admin API (a peer) is used as it is: its welcome
    /// then says whether the room has enough thumbs.
    /// Returns the schemas of the rooms it created, which their welcomes must match.
    static func prepareRooms(_ flags: Flags) throws(HTTP.Failure) -> [String: RoomSchema] {
        var created: [String: RoomSchema] = [:]
        guard flags.draggers > 0 else { return created }
        for id in flags.roomIDs {
            let existing: HTTP.Response
            do {
                existing = try HTTP.request(flags, method: "GET", path: "/api/rooms/\(id)")
            } catch where !error.connecting && !error.refused {
                continue // a server that does not speak this HTTP at all has no admin API: use the room as it is
            }
            var isBenchRoom = false
            if existing.status == 200, let json = try? JSONParser.parse(existing.body) {
                isBenchRoom = json["title"]?.stringValue == "tandem-bench"
                if let validator = try? StateValidator(welcome: json) {
                    let thumbs = MoveTrack.tracks(in: validator.schema).count
                    if thumbs >= flags.draggers { continue }
                    guard isBenchRoom else {
                        throw HTTP.Failure(description: "room '\(id)' has \(thumbs) thumbs to drag, fewer than --draggers \(flags.draggers), and is not a tandem-bench room; pick another id in --url")
                    }
                }
            }
            // Anything but 200 or 404 here is a server without the admin API.
            guard existing.status == 200 || existing.status == 404 else { continue }
            let body = MoveCode.roomJSON(id: id, sliders: flags.draggers)
            var response: HTTP.Response
            do {
                response = try HTTP.request(flags, method: "POST", path: "/api/rooms", body: body)
            } catch where !error.connecting && !error.refused {
                continue
            }
            if response.status == 409, isBenchRoom {
                let deleted = try HTTP.request(flags, method: "DELETE", path: "/api/rooms/\(id)")
                guard deleted.status == 204 || deleted.status == 200 else {
                    throw HTTP.Failure(description: "room '\(id)' exists and cannot be replaced: DELETE answered \(deleted.status) \(String(decoding: deleted.body, as: UTF8.self))")
                }
                response = try HTTP.request(flags, method: "POST", path: "/api/rooms", body: body)
            }
            switch response.status {
            case 200, 201:
                if let schema = try? RoomSchema(validating: SchemaDecoder.room(body)) { created[id] = schema }
                continue
            case 404, 405, 501:
                // No admin API: use the room as it is.
                continue
            default:
                throw HTTP.Failure(description: "POST /api/rooms answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            }
        }
        return created
    }

    private var counters: (frames: UInt64, bytes: UInt64, offered: UInt64, delivered: UInt64) {
        (generator.frames, generator.bytes, generator.offered, generator.recorder.delivered)
    }

    /// Runs the event loop through every phase; returns when the connections are closed.
    func run() {
        startedAt = monotonicNow()
        if flags.idle, let pid = flags.pid { rssBefore = serverRSS(pid) ?? 0 }
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
        let settled = generator.connected + generator.connectErrors + generator.droppedConnections >= flags.clients
        if flags.idle {
            idleTick(now, settled: settled)
            return
        }
        if scheduleStart == 0, settled, generator.connected == 0, generator.closedBeforeWelcome > 0 {
            // Every connection was closed before its welcome: nothing left to measure.
            generator.done = true
            return
        }
        if scheduleStart == 0 {
            let welcomed = generator.rooms.allSatisfy { $0.validator != nil }
            guard (settled && welcomed) || now - lastAttempt > 10_000_000_000 else { return }
            startSchedules(at: now)
            return
        }
        if flags.slow > 0, measureEnd == 0 || now < measureEnd {
            // Slow readers read for 10 ms in every 250 ms.
            let reading = (now / 1_000_000) % 250 < 10
            if reading != slowReading {
                slowReading = reading
                for client in generator.clients where client.slow { generator.setReading(client, reading) }
            }
        }
        // Draggers: ask to write when a move is due.
        if now >= scheduleStart, closeAt == 0 {
            for client in draggers where client.open && !client.ended {
                if generator.recorder.schedule(ofTrack: client.track).movesDue(at: now) > client.nextMove {
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
        if !generator.measuring, measureEnd == 0, now >= measureStart {
            // Warm-up over: measure from here.
            generator.recorder.resetHistograms()
            generator.measuring = true
            measureEnd = now + UInt64(flags.duration * 1e9)
            measureStart = now
            base = counters
            baseByServer = generator.deliveredByServer
            for s in generator.latencyByServer.indices { generator.latencyByServer[s].reset() }
            cpuBefore = ownCPUSeconds()
            serverBefore = flags.pids.map(readProcStat)
            return
        }
        if generator.measuring, now >= measureEnd {
            generator.measuring = false
            final = counters
            finalByServer = generator.deliveredByServer
            latencyByServer = generator.latencyByServer
            let interval = generator.recorder.takeInterval()
            if interval.count > 0 { timeline.append(LatencyPoint(seconds: Double(now - measureStart) / 1e9, histogram: interval)) }
            measuredLatency = generator.recorder.total
            ambiguous = generator.recorder.ambiguous
            fastLatency = generator.recorder.groups[0]
            slowLatency = generator.recorder.groups[1]
            let wall = Double(now - measureStart) / 1e9
            generatorUsage = CPUUsage(seconds: ownCPUSeconds() - cpuBefore, wallSeconds: wall)
            pidUsages = zip(flags.pids, serverBefore).map { pid, before in
                guard let before, let after = readProcStat(pid) else { return PIDUsage(pid: pid, cpu: nil) }
                return PIDUsage(pid: pid, cpu: CPUUsage(from: before, to: after, ticksPerSecond: sysconf(Int32(_SC_CLK_TCK)), wallSeconds: wall))
            }
            if flags.slow > 0 {
                for client in generator.clients where client.slow { generator.setReading(client, true) }
            }
            for client in draggers where client.open {
                client.wantsEnd = true
                generator.requestWrite(client)
            }
            probeAt = now + 500_000_000
            closeAt = now + 1_500_000_000
            return
        }
        if probeAt > 0, now >= probeAt {
            probeAt = 0
            for probe in generator.clients.suffix(probes) { generator.connect(probe) }
        }
        if closeAt > 0, finishBy == 0, now >= closeAt {
            let probed = generator.clients.suffix(probes).allSatisfy { $0.welcome != nil }
            guard probed || now >= closeAt + 5_000_000_000 else { return }
            closeAll(now)
            return
        }
        if finishBy > 0, generator.connected == 0 || now >= finishBy {
            generator.done = true
        }
    }

    private func startSchedules(at now: UInt64) {
        scheduleStart = now + 100_000_000
        let total = max(1, flags.draggers * flags.rooms)
        for r in generator.rooms.indices {
            var schedules: [OpenLoopSchedule] = []
            for k in 0..<flags.draggers {
                // Staggered so the draggers' moves do not all fall due together.
                let order = k * flags.rooms + r
                schedules.append(OpenLoopSchedule(start: scheduleStart + UInt64(Double(order) * 1e9 / (flags.hz * Double(total))), hz: flags.hz))
            }
            if let failure = generator.assignTracks(room: r, schedules: schedules) {
                setupFailure = failure
                closeAll(now)
                return
            }
        }
        measureStart = scheduleStart + UInt64(flags.warmup * 1e9)
        draggers = generator.clients.filter { $0.track >= 0 }
        last = counters
    }

    private func idleTick(_ now: UInt64, settled: Bool) {
        if finishBy > 0 {
            if generator.connected == 0 || now >= finishBy { generator.done = true }
            return
        }
        guard settled || now - lastAttempt > 30_000_000_000 else { return }
        if settledAt == 0 { settledAt = now }
        guard now - settledAt >= 3_000_000_000 else { return }
        if let pid = flags.pid, let after = serverRSS(pid) {
            idle = IdleMemory(connections: generator.connected, rssBefore: rssBefore, rssAfter: after)
        }
        closeAll(now)
    }

    private func closeAll(_ now: UInt64) {
        generator.closingAll = true
        for client in generator.clients where client.open {
            generator.setReading(client, true)
            generator.requestWrite(client)
        }
        finishBy = now + 2_000_000_000
    }

    /// The report: counters of the measured window and the final comparison with the server.
    func report() -> BenchReport {
        var violations = generator.violations
        if generator.violationCount > violations.count {
            violations.append(Violation(control: nil, reason: "\(generator.violationCount - violations.count) more violations not kept"))
        }
        if let setupFailure { violations.append(Violation(control: nil, reason: setupFailure)) }
        if !flags.idle, setupFailure == nil { violations += finalComparison() }
        // A run that ended before its window closed (a failed set-up) measured nothing.
        let complete = generatorUsage != nil
        if !complete { base = final }
        let seconds = complete ? Double(measureEnd - measureStart) / 1e9 : 0
        var report = BenchReport(
            scenario: flags.idle ? "idle \(flags.clients)" : "\(flags.clients)x\(flags.draggers)@\(Format.fixed(flags.hz, 0))Hz",
            url: flags.url, clients: flags.clients, draggers: flags.draggers, hz: flags.hz, seconds: seconds,
            offered: final.offered &- base.offered, delivered: final.delivered &- base.delivered,
            frames: final.frames &- base.frames, bytes: final.bytes &- base.bytes,
            connectErrors: generator.connectErrors + generator.droppedConnections, rejects: generator.rejects,
            violations: violations, latency: measuredLatency, timeline: timeline,
            server: Self.serverCPU(pidUsages), generator: generatorUsage)
        report.pids = pidUsages
        report.nodes = nodeLoads()
        if !flags.idle, flags.draggers > 0, setupFailure == nil, report.delivered == 0 {
            report.violations.append(Violation(control: nil, reason: "no update was delivered in the measured window"))
        }
        report.rooms = flags.rooms
        report.ambiguous = ambiguous
        report.slowPercent = flags.slow
        if flags.slow > 0 {
            report.fastLatency = fastLatency
            report.slowLatency = slowLatency
        }
        report.idle = idle
        if flags.idle, idle == nil {
            report.violations.append(Violation(control: nil, reason: "could not read the server's RSS from /proc/\(flags.pid ?? 0)/stat"))
        }
        return report
    }

    /// The servers' CPU: the one pid's, or the sum of every pid's (none when one is unreadable).
    static func serverCPU(_ usages: [PIDUsage]) -> CPUUsage? {
        let read = usages.compactMap(\.cpu)
        guard read.count == usages.count else { return nil }
        return CPUUsage.sum(read)
    }

    /// Per server URL: its clients and draggers, what they saw in the window, and the CPU of its pid.
    private func nodeLoads() -> [NodeLoad] {
        flags.servers.indices.map { s in
            let mine = generator.clients.filter { $0.server == s && !$0.probe }
            let delivered = finalByServer.indices.contains(s) && baseByServer.indices.contains(s) ? finalByServer[s] &- baseByServer[s] : 0
            let pid = flags.pids.indices.contains(s) ? flags.pids[s] : nil
            let cpu = pidUsages.indices.contains(s) ? pidUsages[s].cpu : nil
            return NodeLoad(url: Self.url(flags.servers[s], tls: flags.tls), clients: mine.count,
                            draggers: mine.filter { $0.slot >= 0 }.count, delivered: delivered,
                            latency: latencyByServer.indices.contains(s) ? latencyByServer[s] : LatencyHistogram(),
                            pid: pid, cpu: cpu)
        }
    }

    private static func url(_ server: BenchURL, tls: Bool) -> String {
        "\(tls ? "wss" : "ws")://\(server.host):\(server.port)\(server.path)"
    }

    /// Why connections were closed before their welcome, when no close code
    /// said it: a token the API refuses is the likely cause, and its answer names it.
    func refusalBehindEarlyCloses() -> String? {
        if let refusal = generator.refusal { return refusal }
        guard generator.closedBeforeWelcome > 0, let room = flags.roomIDs.first else { return nil }
        do {
            _ = try HTTP.request(flags, method: "GET", path: "/api/rooms/\(room)")
        } catch where error.refused {
            return error.description
        } catch {}
        return nil
    }

    /// Every client's view against the server's state: `GET /api/rooms/ID`
    /// when the server answers it, else the welcome of a connection opened
    /// after the draggers ended.
    private func finalComparison() -> [Violation] {
        var violations: [Violation] = []
        for (r, room) in generator.rooms.enumerated() {
            guard let validator = room.validator else {
                violations.append(Violation(control: nil, reason: "room '\(room.id)': no welcome arrived"))
                continue
            }
            var truth: JSON?
            var source = "GET /api/rooms/\(room.id)"
            if let snapshot = try? HTTP.request(flags, method: "GET", path: "/api/rooms/\(room.id)"),
               snapshot.status == 200 {
                truth = try? JSONParser.parse(snapshot.body)
            }
            if truth == nil {
                source = "a fresh connection's welcome"
                truth = generator.clients.suffix(probes).first { $0.room == r }?.welcome
            }
            guard let truth else {
                violations.append(Violation(control: nil, reason: "room '\(room.id)': no final state to compare with (no API snapshot, no welcome for a fresh connection)"))
                continue
            }
            var differing = 0
            for client in generator.clients where client.room == r && !client.probe {
                guard let view = client.view else { continue }
                let found = validator.compare(view, withSnapshot: truth)
                if !found.isEmpty {
                    differing += 1
                    if differing <= 3 {
                        violations += found.map { Violation(control: $0.control, reason: "client \(client.index)'s final state differs from \(source): \($0.reason)") }
                    }
                }
            }
            if differing > 3 {
                violations.append(Violation(control: nil, reason: "room '\(room.id)': \(differing) clients in all differ from \(source)"))
            }
        }
        return violations
    }
}
