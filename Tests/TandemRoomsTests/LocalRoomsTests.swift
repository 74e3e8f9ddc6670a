import Foundation
import TandemCore
import TandemWire
import Testing
@testable import TandemServer

/// Local rooms in process, against a recording delivery: what a member's
/// messages do to the room and to whom the rooms turn, with no lws and no
/// server process (the process-level suites cover the transport).
@Suite("Local rooms behind the seam")
struct LocalRoomsTests {
    let delivery = RecordingDelivery()

    func rooms(data: String = ":memory:") throws -> LocalRooms {
        var config = ServerConfig()
        config.dataPath = data
        let metrics = Metrics()
        let service = try LocalRooms(config: config, ordered: [(RoomSchema.demo, false)],
                                     lines: LogLines(log: Log(level: .error), metrics: metrics), metrics: metrics,
                                     rooms: RoomTable(builtIn: ["demo"]))
        service.delivery = delivery
        service.observer = delivery
        return service
    }

    func committed(_ host: RoomHost, _ control: String) -> String {
        String(decoding: OutboundEncoder.state(host.room.committed[host.room.schema.index(of: control)!]), as: UTF8.self)
    }

    @Test("a member joins, sets a value and leaves: its welcome, its ack and everyone's round")
    func memberLifecycle() throws {
        let service = try rooms()
        let host = try #require(service.rooms["demo"])
        let ann = member(1), bob = member(2)
        service.join(ann, to: host, name: "Ann", role: .editor, since: nil, at: .seconds(1))
        service.join(bob, to: host, name: "Bob", role: .editor, since: nil, at: .seconds(1))
        #expect(ann.welcome != nil && bob.welcome != nil)
        #expect(ann.welcomed && bob.welcomed)
        #expect(delivery.calls.contains(.arm(ann.client)) && delivery.calls.contains(.arm(bob.client)))
        #expect(host.members.count == 2 && host.room.memberCount == 2)

        delivery.forget()
        service.receive(message(#"{"type":"set","seq":1,"control":"gain","value":0.3}"#), from: ann, in: host, at: .seconds(2))
        #expect(committed(host, "gain") == #"{"value":0.3}"#)
        #expect(delivery.calls == [.arm(ann.client), .broadcast("demo")]) // the ack wakes Ann; the change goes to everyone's round
        #expect(delivery.commits.map(\.control) == ["gain"])
        service.leave(ann, from: host, at: .seconds(3))
        #expect(host.members.count == 1 && host.members[bob.client] === bob)
        #expect(delivery.calls.last == .broadcast("demo"))
    }

    @Test("a drag move's ack rides the round that carries the move; begin, end and a move that shows nothing are acked at once")
    func moveAcksRideTheRound() throws {
        let service = try rooms()
        let host = try #require(service.rooms["demo"])
        let ann = member(1), bob = member(2)
        service.join(ann, to: host, name: "Ann", role: .editor, since: nil, at: .seconds(1))
        service.join(bob, to: host, name: "Bob", role: .editor, since: nil, at: .seconds(1))

        delivery.forget()
        service.receive(message(#"{"type":"drag","seq":1,"control":"gain","phase":"begin"}"#), from: ann, in: host, at: .seconds(2))
        #expect(delivery.arms(of: ann.client) == 1, "a begin's ack goes out at once")

        delivery.forget()
        service.receive(message(#"{"type":"drag","seq":2,"control":"gain","phase":"move","dx":0.1}"#), from: ann, in: host, at: .seconds(2.01))
        #expect(delivery.calls == [.broadcast("demo")], "the move goes to everyone's round, its ack with it")
        #expect(host.room.hasPendingFrame(for: ann.client), "the round owes Ann her ack")

        delivery.forget()
        service.receive(message(#"{"type":"drag","seq":3,"control":"gain","phase":"move","dx":0.1}"#), from: ann, in: host, at: .seconds(2.02))
        #expect(delivery.calls == [.arm(ann.client)], "a move to where the thumb already is shows nobody anything: acked at once")

        delivery.forget()
        service.receive(message(#"{"type":"drag","seq":4,"control":"nope","phase":"move","dx":0.2}"#), from: ann, in: host, at: .seconds(2.03))
        #expect(delivery.arms(of: ann.client) >= 1 && !delivery.calls.contains(.broadcast("demo")), "a refused move: its reject and ack at once")

        delivery.forget()
        service.receive(message(#"{"type":"drag","seq":5,"control":"gain","phase":"end"}"#), from: ann, in: host, at: .seconds(2.04))
        #expect(delivery.arms(of: ann.client) == 1 && delivery.calls.contains(.broadcast("demo")), "an end's ack goes out at once")
    }

    @Test("a refused message is answered to its sender alone, with the room unchanged")
    func refusal() throws {
        let service = try rooms()
        let host = try #require(service.rooms["demo"])
        let viewer = member(3)
        service.join(viewer, to: host, name: "Vic", role: .viewer, since: nil, at: .seconds(1))
        delivery.forget()
        service.receive(message(#"{"type":"set","seq":1,"control":"gain","value":0.9}"#), from: viewer, in: host, at: .seconds(2))
        #expect(committed(host, "gain") != #"{"value":0.9}"#)
        #expect(delivery.calls.allSatisfy { $0 == .arm(viewer.client) } && !delivery.calls.isEmpty) // its reject and its ack wake it alone
        guard case let .reject(reject)? = host.nextFrame(for: viewer.client) else {
            Issue.record("no reject for the viewer")
            return
        }
        #expect(reject.code == .forbidden && reject.seq == 1)
    }

    @Test("an HTTP write is answered with the committed value, and the file keeps it")
    func writeOverHTTP() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-rooms-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tandem.db").path
        do {
            let service = try rooms(data: path)
            let host = try #require(service.rooms["demo"])
            let answer = service.write(try put(#"{"value":0.25}"#, control: "gain"), in: host, exchange: putExchange("gain"))
            let (status, text) = try #require(parts(answer))
            #expect(status == 200)
            #expect(text.contains(#""state":{"value":0.25}"#))
            service.stop()
            service.finish()
        }
        let reopened = try rooms(data: path)
        #expect(committed(try #require(reopened.rooms["demo"]), "gain") == #"{"value":0.25}"#)
        reopened.finish()
    }

    @Test("a restore in the turn that made the commits it reads: the commits are written first, then the past is applied")
    func restoreOfThisTurnsCommits() throws {
        // The read writes the turn's commits, which releases the room's
        // frames: the room must not be held through it (an overlapping
        // access traps the process).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-rooms-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = try rooms(data: directory.appendingPathComponent("tandem.db").path)
        defer { service.finish() }
        let host = try #require(service.rooms["demo"])
        let ann = member(1)
        service.join(ann, to: host, name: "Ann", role: .admin, since: nil, at: .seconds(1))
        service.receive(message(#"{"type":"set","seq":1,"control":"gain","value":0.3}"#), from: ann, in: host, at: .seconds(2))
        service.receive(message(#"{"type":"set","seq":2,"control":"gain","value":0.6}"#), from: ann, in: host, at: .seconds(2))
        #expect(service.commitsPending && host.room.withholdingFrames) // nothing of this turn is written yet
        let revision = host.room.revision
        service.receive(message(#"{"type":"restore","seq":3,"rev":\#(revision - 1)}"#), from: ann, in: host, at: .seconds(2))
        #expect(committed(host, "gain") == #"{"value":0.3}"#)
        #expect(host.room.revision == revision + 1)
        #expect(host.room.waitingRejects(for: ann.client) == 0)
    }

    @Test("a preset saved by one member reaches the others' next frames; a taken name is refused")
    func presets() throws {
        let service = try rooms()
        let host = try #require(service.rooms["demo"])
        let ann = member(1), bob = member(2)
        service.join(ann, to: host, name: "Ann", role: .editor, since: nil, at: .seconds(1))
        service.join(bob, to: host, name: "Bob", role: .editor, since: nil, at: .seconds(1))
        bob.presets = nil
        var outcome: Result<PresetOutcome, PresetRefusal>?
        service.changePreset(.save(name: "warm"), in: host, client: ann.client.rawValue, by: "Ann") { outcome = $0 }
        guard case let .success(.saved(preset, created))? = outcome else {
            Issue.record("not saved: \(String(describing: outcome))")
            return
        }
        #expect(created && preset.name == "warm")
        #expect(String(decoding: try #require(bob.presets), as: UTF8.self).contains(#""warm""#))
        #expect(service.presetBook("demo")?.preset(named: "warm") != nil)
        service.changePreset(.rename(name: "warm", to: "warm"), in: host, client: "api", by: "api") { outcome = $0 }
        guard case .success(.renamed)? = outcome else {
            Issue.record("a rename to its own name is no change: \(String(describing: outcome))")
            return
        }
        service.changePreset(.delete(name: "cold"), in: host, client: "api", by: "api") { outcome = $0 }
        guard case let .failure(refusal)? = outcome else {
            Issue.record("an unknown preset was deleted")
            return
        }
        #expect(refusal.code == .unknownPreset)
    }

    @Test("a room made over the API is served at once; deleting it closes its members with 4404")
    func saveAndDelete() throws {
        let service = try rooms()
        let schema = try RoomBody(Array(#"{"id":"lab","controls":[{"id":"x","type":"slider","min":0,"max":1}]}"#.utf8)).schema
        let (created, _) = try #require(parts(service.saveRoom(schema, replacing: nil)))
        #expect(created == 201)
        #expect(service.rooms.order == ["demo", "lab"])
        let host = try #require(service.rooms["lab"])
        let ann = member(1)
        service.join(ann, to: host, name: "Ann", role: .editor, since: nil, at: .seconds(1))
        let (deleted, _) = try #require(parts(service.deleteRoom("lab")))
        #expect(deleted == 204)
        #expect(service.rooms["lab"] == nil && service.rooms.order == ["demo"])
        #expect(delivery.calls.contains(.close(ann.client, 4404)))
    }
}
