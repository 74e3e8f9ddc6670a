import CTandemRedis
import Foundation
import TandemCore
import TandemRedisTestSupport
import TandemWire
import Testing
@testable import TandemServer

/// Replicated rooms in process, against a real redis-server and a recording
/// delivery: one node that owns the room and serves its member from its view,
/// so that every message goes through Redis (relay, owner's turn, publication,
/// view) with no lws and no server process. The process-level cluster suites
/// run two nodes.
@Suite("Replicated rooms behind the seam", .serialized)
final class ReplicatedRoomsTests {
    let delivery = RecordingDelivery()
    let redis: RedisServerProcess
    let loop = TestLoop()
    var service: ReplicatedRooms!

    init() throws {
        redis = try RedisServerProcess()
        try redis.start()
        var config = ServerConfig()
        config.eventLoop = .uv
        config.cluster = ClusterSettings(redisURL: redis.url, nodeID: "n1")
        let metrics = Metrics()
        service = try ReplicatedRooms(config: config, settings: config.cluster!, ordered: [(RoomSchema.demo, false)],
                                      lines: LogLines(log: Log(level: .error), metrics: metrics), metrics: metrics,
                                      rooms: RoomTable(builtIn: ["demo"]), loop: loop.loop)
        service.delivery = delivery
        service.observer = delivery
        let loop = self.loop
        service.start { tandem_redis_loop_run_once(loop.loop); return true }
    }

    deinit {
        service.stop()
        loop.run(for: 0.1)
        service = nil
        loop.close()
    }

    /// Runs the loop and the rooms' end of turn until `condition` holds (30 s at most: only a hang reaches it).
    func turns(until condition: () -> Bool) -> Bool {
        loop.run(until: {
            self.service.endOfTurn()
            self.service.tick(at: MonotonicClock.now())
            return condition()
        })
    }

    func committed(_ host: RoomHost, _ control: String) -> String {
        String(decoding: OutboundEncoder.state(host.room.committed[host.room.schema.index(of: control)!]), as: UTF8.self)
    }

    @Test("a member is welcomed once the owner admits it, and its set comes back acknowledged from the view")
    func memberThroughTheOwner() throws {
        #expect(service.cluster.up)
        let host = try #require(service.rooms["demo"])
        let ann = member(1, prefix: service.clientPrefix)
        service.join(ann, to: host, name: "Ann", role: .editor, since: nil, at: MonotonicClock.now())
        #expect(ann.welcome == nil) // not before the owner's admission
        #expect(turns(until: { ann.welcome != nil }), "never admitted")
        #expect(service.cluster.replicas["demo"]?.owned == true)
        #expect(ann.relay.registered && ann.welcomed)

        delivery.forget()
        service.receive(message(#"{"type":"set","seq":1,"control":"gain","value":0.3}"#), from: ann, in: host, at: MonotonicClock.now())
        #expect(turns(until: { self.committed(host, "gain") == #"{"value":0.3}"# && self.delivery.arms(of: ann.client) > 0 }), "the view never showed the set")
        #expect(ann.relay.relayed.isEmpty) // answered: the owner's ack reached the view
        #expect(delivery.calls.contains(.broadcast("demo")))
    }

    @Test("an HTTP write waits for the owner and is answered once its ack is in the view")
    func writeOverHTTP() throws {
        let host = try #require(service.rooms["demo"])
        let answer = service.write(try put(#"{"value":0.75}"#, control: "gain"), in: host, exchange: putExchange("gain"))
        guard case .deferred = answer else {
            Issue.record("answered before the owner: \(answer)")
            return
        }
        #expect(turns(until: { !self.delivery.answers.isEmpty }), "never answered")
        let (status, text) = try #require(delivery.answers.first.flatMap { parts($0.answer) })
        #expect(status == 200)
        #expect(text.contains(#""state":{"value":0.75}"#))
        #expect(committed(host, "gain") == #"{"value":0.75}"#)
    }
}

extension ReplicatedRoomsTests {
    /// Holds back every preset delta this node hears, as a slow subscription
    /// would, so that Redis' reply to a change comes first; `release` delivers them.
    final class HeldDeltas {
        var held: [(channel: [UInt8], payload: [UInt8])] = []
        var deliver: (([UInt8], [UInt8]) -> Void)?
        func release() {
            let now = held
            held = []
            for (channel, payload) in now { deliver?(channel, payload) }
        }
    }

    func holdPresetDeltas() -> HeldDeltas {
        let hold = HeldDeltas()
        hold.deliver = service.cluster.subscriber.onMessage
        service.cluster.subscriber.onMessage = { [hold] channel, payload in
            if payload.starts(with: ClusterPresets.prefix.utf8) { hold.held.append((channel, payload)) } else { hold.deliver?(channel, payload) }
        }
        return hold
    }

    /// Changes a preset through the seam; checks it is not answered once Redis
    /// replied while its delta is held back, then releases it and waits for the answer.
    func change(_ request: PresetRequest, _ host: RoomHost, _ hold: HeldDeltas) -> Result<PresetOutcome, PresetRefusal>? {
        var outcome: Result<PresetOutcome, PresetRefusal>?
        service.changePreset(request, in: host, client: "api", by: "api") { outcome = $0 }
        // A PING on the same connection is answered after the change's script: once it is, Redis has replied.
        var pinged = false
        service.cluster.commands.send(["PING"]) { _ in pinged = true }
        // Both: Redis replied (the PING after the script was answered) and the delta is here, held back.
        #expect(turns(until: { pinged && hold.held.count == 1 }), "Redis never answered, or the script published no delta")
        #expect(outcome == nil, "answered before this node heard the change: a read here could miss it")
        hold.release()
        _ = turns(until: { outcome != nil })
        return outcome
    }

    @Test("a preset save, rename and delete are answered once this node's book has them, after Redis' reply and the delta (read your writes)")
    func presetsReadYourWrites() throws {
        let host = try #require(service.rooms["demo"])
        var read = false
        service.withPresetBook("demo") { _ in read = true } // read first, so that the script is the first command below
        #expect(turns(until: { read }))
        let hold = holdPresetDeltas()
        guard case .success(.saved(_, created: true))? = change(.save(name: "Warm"), host, hold) else {
            Issue.record("save not answered as created")
            return
        }
        #expect(service.presetBook("demo")?.preset(named: "Warm") != nil)
        guard case let .success(.renamed(renamed))? = change(.rename(name: "Warm", to: "Cold"), host, hold) else {
            Issue.record("rename not answered")
            return
        }
        #expect(renamed.name == "Cold" && !renamed.entries.isEmpty)
        #expect(service.presetBook("demo")?.preset(named: "Cold") != nil)
        #expect(service.presetBook("demo")?.preset(named: "Warm") == nil)
        guard case .success(.deleted)? = change(.delete(name: "Cold"), host, hold) else {
            Issue.record("delete not answered")
            return
        }
        #expect(service.presetBook("demo")?.preset(named: "Cold") == nil)
        #expect(service.presetEchoes.count == 0)
    }
}
