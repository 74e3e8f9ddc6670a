import TandemTestSupport
import Foundation
import Testing
import TandemClient
import TandemCore

/// The shared conformance scenarios (clients/conformance/scenarios.md on the
/// client-python branch), each against a real `tandem` started on a free port.
@Suite(.serialized)
struct ScenarioTests {
    @Test func scenario1Connect() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let room = try await RoomSession.connect(roomURL(server), name: "Ann")
        defer { room.close() }
        #expect(room.schema?.controls.map(\.id) == ["size", "blanks", "color", "gain", "bpm"])
        #expect(room.control("gain").value == 0.5)
        #expect(room.control("size").state == .snap(index: 2, value: 60))
        #expect(room.control("blanks").state == .range(RangeState(lower: 0, upper: 1)))
        #expect(room.control("bpm").value == 67)
        #expect(room.client.hasPrefix("c"))
    }

    @Test func scenario1UnknownRoomIsRefused() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        await #expect(throws: TandemError.refused(code: 4404, reason: "unknown room")) {
            _ = try await RoomSession.connect(roomURL(server, "nowhere"))
        }
    }

    @Test func scenario2Watch() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let ann = try await RoomSession.connect(roomURL(server), name: "Ann")
        let bob = try await RoomSession.connect(roomURL(server), name: "Bob")
        defer { ann.close(); bob.close() }
        let seen = Collector(ann.control("gain").changes)
        let everything = Collector(bob.changes)
        try await bob.control("gain").set(0.25)
        // Commits of one control within a fan-out round (12 ms) would reach Ann as one.
        #expect(await eventually { seen.all.count == 1 })
        try await bob.control("gain").set(0.75)
        #expect(await eventually { seen.all.count == 2 })
        #expect(seen.all.map(\.value) == [0.25, 0.75])
        #expect(seen.all.allSatisfy { $0.by == bob.client && $0.name == "Bob" && !$0.mine })
        // The setter sees its own commits too, marked `mine`.
        #expect(await eventually { everything.all.count == 2 })
        #expect(everything.all.allSatisfy { $0.mine })
    }

    @Test func scenario3Set() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let room = try await RoomSession.connect(roomURL(server), name: "Ann")
        defer { room.close() }
        try await room.control("gain").set(0.123)
        // Clamped then snapped to the step, as the server does; current once acked.
        #expect(room.control("gain").value == 0.12)
        try await room.control("size").set(81)
        #expect(room.control("size").state == .snap(index: 3, value: 80))
        try await room.control("color").set(hex: "#ff8800")
        #expect(room.control("bpm").value == 67)
        try await room.control("bpm").set(120)
        #expect(room.control("bpm").value == 120)
        await #expect { try await room.control("nope").set(1) } throws: { error in
            if case .unknownControl = error as? TandemError { true } else { false }
        }
        await #expect { try await room.control("gain").set(.nan) } throws: { error in
            if case .badValue = error as? TandemError { true } else { false }
        }
        await #expect { try await room.control("blanks").set(2, thumb: .red) } throws: { error in
            if case .unknownThumb = error as? TandemError { true } else { false }
        }
        await #expect { try await room.control("bpm").step(by: 1) } throws: { error in
            if case .readOnly = error as? TandemError { true } else { false }
        }
        #expect(room.control("gain").value == 0.12)
    }

    /// Reset: a control, then the whole room, back to the room file's values; a gauge's is read-only.
    @Test func scenario3Reset() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let room = try await RoomSession.connect(roomURL(server), name: "Ann")
        defer { room.close() }
        try await room.control("gain").set(0.9)
        try await room.control("size").set(100)
        try await room.control("gain").reset()
        #expect(room.control("gain").value == 0.5)
        try await room.reset()
        #expect(room.control("size").state == .snap(index: 2, value: 60))
        await #expect { try await room.control("bpm").reset() } throws: { error in
            if case .readOnly = error as? TandemError { true } else { false }
        }
    }

    @Test func scenario4Gesture() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let ann = try await RoomSession.connect(roomURL(server), name: "Ann")
        let bob = try await RoomSession.connect(roomURL(server), name: "Bob")
        defer { ann.close(); bob.close() }
        let seen = Collector(bob.control("size").changes)
        let ghosts = Collector(bob.ghosts)
        let drag = try await ann.control("size").drag()
        // Snapped locally exactly like the server: 0.3 of five values is index 1.
        #expect(drag.move(to: 0.1) == .snap(index: 0, value: 20))
        #expect(drag.move(to: 0.3) == .snap(index: 1, value: 40))
        let preview = drag.move(to: 0.9)
        #expect(preview == .snap(index: 4, value: 100))
        // The other client sees the previews as a ghost, with the same snapped state.
        #expect(await eventually { ghosts.all.contains { $0.state == preview && $0.name == "Ann" && $0.thumb == "index" } })
        #expect(bob.control("size").state == .snap(index: 2, value: 60))
        try await drag.end()
        #expect(ann.control("size").state == preview)
        #expect(await eventually { seen.all.count == 1 })
        try await Task.sleep(nanoseconds: 200_000_000)
        // Previews are not commits: one commit for the whole gesture.
        #expect(seen.all.map { $0.state } == [ControlState.snap(index: 4, value: 100)])
        #expect(seen.all.first?.name == "Ann")
    }

    @Test func scenario5Busy() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let ann = try await RoomSession.connect(roomURL(server), name: "Ann")
        let bob = try await RoomSession.connect(roomURL(server), name: "Bob")
        defer { ann.close(); bob.close() }
        let drag = try await ann.control("gain").drag()
        drag.move(to: 0.8)
        await #expect(throws: TandemError.self) { try await bob.control("gain").set(0.1) }
        do {
            try await bob.control("gain").set(0.1)
            Issue.record("a set on a held thumb was accepted")
        } catch let TandemError.busy(holder, holderName, _) {
            #expect(holder == ann.client)
            #expect(holderName == "Ann")
        }
        do {
            _ = try await bob.control("gain").drag()
            Issue.record("a begin on a held thumb was accepted")
        } catch let TandemError.busy(_, holderName, _) {
            #expect(holderName == "Ann")
        }
        try await drag.end()
        try await bob.control("gain").set(0.1)
        #expect(bob.control("gain").value == 0.1)
    }

    @Test func scenario6ReconnectWithSince() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let proxy = try TCPProxy(upstream: server.port)
        defer { proxy.stop() }
        let ann = try await RoomSession.connect("ws://127.0.0.1:\(proxy.port)/rooms/demo", name: "Ann")
        let bob = try await RoomSession.connect(roomURL(server), name: "Bob")
        defer { ann.close(); bob.close() }
        let seen = Collector(ann.changes)
        let events = Collector(ann.events)
        try await bob.control("gain").set(0.3)
        #expect(await eventually { ann.control("gain").value == 0.3 })
        let before = ann.rev
        proxy.refusing = true
        proxy.dropAll()
        #expect(await eventually { events.all.contains { if case .disconnected = $0 { true } else { false } } })
        // Missed while away.
        try await bob.control("gain").set(0.7)
        try await bob.control("size").set(20)
        proxy.refusing = false
        #expect(await eventually(timeout: 10) { ann.control("size").value == 20 })
        #expect(ann.control("gain").value == 0.7)
        #expect(ann.rev > before)
        #expect(ann.rev == bob.rev)
        for id in ["size", "blanks", "color", "gain", "bpm"] { #expect(ann.control(id).state == bob.control(id).state) }
        // The catch-up came as changes.
        // (The state is updated before the stream's consumer runs: wait for it.)
        #expect(await eventually { seen.all.contains { $0.control == "gain" && $0.value == 0.7 } })
        #expect(await eventually { seen.all.contains { $0.control == "size" && $0.value == 20 } })
        // And the connection works again.
        try await ann.control("gain").set(0.4)
        #expect(await eventually { bob.control("gain").value == 0.4 })
    }

    @Test func scenario7SchemaChange() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let first = #"{"id":"lab","title":"Lab","controls":[{"id":"cutoff","type":"slider","label":"Cutoff","min":0,"max":1}]}"#
        let (created, body) = try await http("POST", server, "/api/rooms", body: first)
        #expect((200..<300).contains(created), "\(body)")
        let room = try await RoomSession.connect(roomURL(server, "lab"), name: "Ann")
        defer { room.close() }
        let events = Collector(room.events)
        #expect(room.schema?.controls.map(\.id) == ["cutoff"])
        let second = #"{"id":"lab","title":"Lab","controls":[{"id":"cutoff","type":"slider","label":"Cutoff","min":0,"max":1},{"id":"loss","type":"gauge","label":"Loss","min":0,"max":1}]}"#
        let (replaced, answer) = try await http("POST", server, "/api/rooms", body: second)
        #expect((200..<300).contains(replaced), "\(answer)")
        #expect(await eventually { room.schema?.controls.map(\.id) == ["cutoff", "loss"] })
        #expect(await eventually {
            events.all.contains { if case let .schemaChanged(schema) = $0 { schema.controls.count == 2 } else { false } }
        })
        try await room.control("loss").set(0.25)
        #expect(room.control("loss").value == 0.25)
    }

    @Test func scenario9ServerRestart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-client-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        var server = try ServerProcess.start(["--data", file])
        let port = server.port
        let room = try await RoomSession.connect(roomURL(server), name: "Ann")
        defer { room.close() }
        let events = Collector(room.events)
        let writer = Task { () -> [Double] in
            var acked: [Double] = []
            for i in 1...20 {
                let value = Double(i) / 100
                do {
                    try await room.control("gain").set(value)
                    acked.append(value)
                } catch {
                    Issue.record("set \(value) failed: \(error)")
                }
                try? await Task.sleep(nanoseconds: 30_000_000)
            }
            return acked
        }
        try await Task.sleep(nanoseconds: 250_000_000)
        _ = server.stop()
        server = try ServerProcess.start(["--port", "\(port)", "--data", file])
        defer { _ = server.stop() }
        let acked = await writer.value
        #expect(acked.count == 20)
        // The restart really fell in the middle: the client saw the drop and came back.
        #expect(await eventually { events.all.contains { if case .disconnected = $0 { true } else { false } } })
        #expect(await eventually { events.all.contains { if case .reconnected = $0 { true } else { false } } })
        #expect(room.control("gain").value == 0.2)
        let (status, history) = try await http("GET", server, "/api/rooms/demo/history?since=0")
        #expect(status == 200)
        let entries = ((try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any])?["history"] as? [[String: Any]]) ?? []
        let logged = Set(entries.filter { $0["control"] as? String == "gain" }
            .compactMap { (($0["state"] as? [String: Any])?["value"] as? Double).map { ($0 * 100).rounded() } })
        for value in acked { #expect(logged.contains((value * 100).rounded()), "acked \(value) is not in the history") }
    }
}
