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
