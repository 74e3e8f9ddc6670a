import TandemTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A value handed to another thread that only that thread uses from then on.
private final class Handoff<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// What one mover thread reports.
private struct MoverReport: Sendable {
    var sent = 0
    var rejects: [String: Int] = [:]
    var error: String?
}

/// One mover: a thumb, the dx of its last move, and its connection.
private struct Mover {
    var control: String
    var thumb: String?
    var finalDx: Double
    var client: WireClient

    var key: String { thumb.map { "\(control).\($0)" } ?? control }
}

@Suite("Slow reader")
struct SlowReaderTests {
    static let moves = 2_900
    /// Per connection, under the server's 300 messages/s sustained (burst 600).
    static let rate = 280.0
    /// A mover that fell this far (s) behind its pace (its thread or the server
    /// starved on a loaded machine) carries on at the pace from there: catching
    /// up in a burst would spend the server's burst allowance and be refused.
    static let lateness = 0.25
    /// Unacknowledged messages a mover allows itself, far under the burst: a
    /// server that fell behind and catches up never finds more of one mover's
    /// messages waiting (it takes them all at once, and refills only 300 a second).
    static let window = 150

    @Test("a client that stops reading costs the server bounded memory and, once it reads again, gets the final states in a few conflated frames",
          .timeLimit(.minutes(3)))
    func slowReaderIsConflated() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }

        let slow = try WireClient(port: server.port, name: "slow", receiveBuffer: 4096)
        let plan: [(String, String?, Double)] = [
            ("gain", nil, -0.25), ("size", nil, 0.5),
            ("color", "red", 0.8), ("color", "green", -0.4), ("color", "blue", 0.4),
            ("blanks", "lower", 2.0 / 9), ("blanks", "upper", 2.0 / 9),
        ]
        var movers: [Mover] = []
        for (control, thumb, finalDx) in plan {
            movers.append(Mover(control: control, thumb: thumb, finalDx: finalDx,
                                client: try WireClient(port: server.port, name: "mover")))
        }
        // Each mover reads its peers' joins so the setup is quiet before measuring.
        let lastID = movers.last!.client.id
        for mover in movers.dropLast() {
            _ = try mover.client.waitFor("the last join") { frame in
                objects(frame, "joined").contains { $0["client"] as? String == lastID }
            }
        }
        // Barrier: the slow socket reads up to the last join, so the setup's frames have all been
        // delivered and the server is quiet; from here it stops reading (until the movers are done).
        _ = try slow.waitFor("the last join") { frame in
            objects(frame, "joined").contains { $0["client"] as? String == lastID }
        }
        let rssBefore = try #require(server.residentBytes(), "VmRSS of pid \(server.pid)")

        let started = Date()
        let reports = Handoff([MoverReport](repeating: MoverReport(), count: movers.count))
        let lock = NSLock()
        let finished = DispatchGroup()
        for (index, mover) in movers.enumerated() {
            let handoff = Handoff(mover)
            finished.enter()
            let thread = Thread {
                let report = Self.run(handoff.value)
                lock.lock()
                reports.value[index] = report
                lock.unlock()
                finished.leave()
            }
            thread.name = "mover \(mover.key)"
            thread.start()
        }
        let allDone = finished.wait(timeout: .now() + 90)
        let moveSeconds = Date().timeIntervalSince(started)
        lock.lock()
        let results = reports.value
        lock.unlock()
        try #require(allDone == .success, "movers still running after 90 s")
        for (mover, report) in zip(movers, results) {
            #expect(report.error == nil, "\(mover.key): \(report.error ?? "")")
            #expect(report.rejects.isEmpty, "\(mover.key) was refused: \(report.rejects)")
        }
        let sent = results.reduce(0) { $0 + $1.sent }
        let rssAfter = try #require(server.residentBytes())

        // What the room committed in the end, from the API.
        let room = try HTTPClient.get(port: server.port, "/api/rooms/demo").json()
        var expected: [String: JSONObject] = [:]
        for control in objects(room, "controls") {
            if let id = control["id"] as? String, let state = control["state"] as? JSONObject { expected[id] = state }
        }
        #expect(stateMatches(expected["gain"], ["value": 0.25]))
        #expect(stateMatches(expected["size"], ["index": 4, "value": 100]))
        #expect(stateMatches(expected["color"], ["red": 1.0, "green": 0.0, "blue": 1.0, "hex": "#FF00FF"]))

        // The slow socket resumes reading: it must catch up in far fewer frames than were sent.
        try slow.socket.socket.setTimeout(0.5)
        let touched = Set(movers.map(\.control))
        let thumbs = Set(movers.map(\.key))
        var latest: [String: JSONObject] = [:]
        var phases: [String: String] = [:]
        var frames = 0
        var bytes = 0
        let catchUpStarted = Date()
        let deadline = catchUpStarted.addingTimeInterval(60)
        func caughtUp() -> Bool {
            touched.allSatisfy { id in
                guard let got = latest[id], let want = expected[id] else { return false }
                return stateMatches(got, want)
            } && thumbs.allSatisfy { phases[$0] == "end" }
        }
        while !caughtUp(), Date() < deadline {
            let message: RawWebSocket.Message
            do { message = try slow.socket.receive() } catch SocketError.timeout { continue }
            guard case let .text(text) = message else {
                Issue.record("the slow reader got \(message) while catching up")
                break
            }
            let frame = try parseObject(text)
            frames += 1
            bytes += text.utf8.count
            for entry in objects(frame, "changes") {
                if let id = entry["control"] as? String, let state = entry["state"] as? JSONObject { latest[id] = state }
            }
            for entry in objects(frame, "gestures") {
                guard let control = entry["control"] as? String, let phase = entry["phase"] as? String else { continue }
                let thumb = entry["thumb"] as? String
                let key = movers.first { $0.control == control && ($0.thumb == nil || $0.thumb == thumb) }?.key ?? control
                phases[key] = phase
            }
        }
        let summary = "sent \(sent) messages in \(String(format: "%.1f", moveSeconds)) s; slow reader caught up in \(frames) frames "
            + "(\(bytes / 1024) KiB, \(String(format: "%.1f", Date().timeIntervalSince(catchUpStarted))) s); RSS \(rssBefore / 1024) KiB → \(rssAfter / 1024) KiB"
        print("slow reader: " + summary)
        #expect(caughtUp(), "final states not reached: latest \(describe(latest)) phases \(phases) expected \(describe(expected)); \(summary)")
        #expect(sent >= movers.count * Self.moves)
        // The server caps unsent kernel bytes per socket (TCP_NOTSENT_LOWAT), so what
        // the reader missed is conflated in the server rather than queued in the kernel.
        #expect(frames < 2_000, "\(summary)")
        #expect(rssAfter - rssBefore < 8 * 1024 * 1024, "\(summary)")
    }

    /// Begin, `moves` moves paced at `rate`, the last at `finalDx`, then end; reads what arrives as it goes.
    private static func run(_ mover: Mover) -> MoverReport {
        var report = MoverReport()
        let client = mover.client
        var highestAck = 0
        func drain() throws {
            while let message = try client.socket.poll() {
                guard case let .text(text) = message, let frame = try? parseObject(text) else { continue }
                if frame["type"] as? String == "reject" {
                    report.rejects[frame["code"] as? String ?? "?", default: 0] += 1
                }
                highestAck = max(highestAck, frame["ack"] as? Int ?? 0)
            }
        }
        do {
            var start = Date()
            try client.drag(mover.control, mover.thumb, "begin")
            report.sent += 1
            for i in 1...moves {
                var wait = start.addingTimeInterval(Double(i) / rate).timeIntervalSinceNow
                if wait < -lateness {
                    start = start.addingTimeInterval(-wait - lateness)
                    wait = -lateness
                }
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                // A triangle wave of ±0.2 around the start, so nearly every move changes the preview.
                let dx = i == moves ? mover.finalDx : Double(abs(i % 40 - 20) - 10) * 0.02
                let seq = try client.drag(mover.control, mover.thumb, "move", dx: dx)
                report.sent += 1
                if i % 8 == 0 { try drain() }
                if seq - highestAck > window {
                    let update = try client.waitForAck(seq - window / 2)
                    highestAck = max(highestAck, update["ack"] as? Int ?? 0)
                }
            }
            usleep(UInt32(1_000_000 / rate))
            let last = try client.drag(mover.control, mover.thumb, "end")
            report.sent += 1
            try drain()
            // The ack may already have been read by drain(); otherwise wait for it.
            if highestAck < last { try client.waitForAck(last) }
            for frame in client.received where frame["type"] as? String == "reject" {
                report.rejects[frame["code"] as? String ?? "?", default: 0] += 1
            }
        } catch {
            report.error = "\(error)"
        }
        return report
    }
}
