import CTandemRedis
import Foundation
import TandemCore
import TandemRedis
import TandemRedisTestSupport
import TandemWire
import Testing
@testable import TandemServer

/// Two nodes in process against one real redis-server, each on its own loop:
/// turning only one loop pauses the other node exactly as SIGSTOP would (its
/// sockets fill, its lease lapses), with no timing left to chance.
@Suite("An owner change behind the seam", .serialized)
final class ReplicatedOwnerChangeTests {
    let redis: RedisServerProcess
    let loop1 = TestLoop(), loop2 = TestLoop()
    let delivery1 = RecordingDelivery(), delivery2 = RecordingDelivery()
    var n1: ReplicatedRooms!
    var n2: ReplicatedRooms!

    init() throws {
        redis = try RedisServerProcess()
        try redis.start()
        n2 = try Self.node("n2", redis: redis, loop: loop2, delivery: delivery2)
        n1 = try Self.node("n1", redis: redis, loop: loop1, delivery: delivery1)
    }

    deinit {
        n1.stop()
        n2.stop()
        loop1.run(for: 0.05)
        loop2.run(for: 0.05)
        n1 = nil
        n2 = nil
        loop1.close()
        loop2.close()
    }

    static func node(_ id: String, redis: RedisServerProcess, loop: TestLoop, delivery: RecordingDelivery) throws -> ReplicatedRooms {
        var config = ServerConfig()
        config.eventLoop = .uv
        config.cluster = ClusterSettings(redisURL: redis.url, nodeID: id)
        let metrics = Metrics()
        let node = try ReplicatedRooms(config: config, settings: config.cluster!, ordered: [(RoomSchema.demo, false)],
                                       lines: LogLines(log: Log(level: .error), metrics: metrics), metrics: metrics,
                                       rooms: RoomTable(builtIn: ["demo"]), loop: loop.loop)
        node.delivery = delivery
        node.observer = delivery
        node.start { tandem_redis_loop_run_once(loop.loop); return true }
        return node
    }

    /// One turn of a node: its loop once, then its end of turn and housekeeping.
    func turn(_ node: ReplicatedRooms, _ loop: TestLoop) {
        tandem_redis_loop_run_once(loop.loop)
        node.endOfTurn()
        node.tick(at: MonotonicClock.now())
    }

    /// Turns both nodes until `condition` holds (30 s at most: only a hang reaches it).
    func bothTurn(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            if Date() > deadline { return false }
            turn(n1, loop1)
            turn(n2, loop2)
        }
        return true
    }

    /// Turns n1 alone (n2 is paused) until `condition` holds, checked after each
    /// run of its loop and before its end of turn.
    func n1Turns(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while true {
            if Date() > deadline { return false }
            tandem_redis_loop_run_once(loop1.loop)
            if condition() { return true }
            n1.endOfTurn()
            n1.tick(at: MonotonicClock.now())
        }
    }

    /// Every frame waiting for `client`: its rejects' seqs and the highest ack.
    func drain(_ host: RoomHost, _ client: ClientID) -> (rejected: [Int: RejectCode], ack: Int) {
        var rejected: [Int: RejectCode] = [:]
        var ack = 0
        while let frame = host.nextFrame(for: client) {
            switch frame {
            case let .reject(reject): rejected[reject.seq] = reject.code
            case let .update(update): ack = max(ack, update.ack)
            }
        }
        return (rejected, ack)
    }

    @Test("a message sent toward a paused owner is answered, not acknowledged by the next owner's first ack")
    func pausedOwnersMessage() throws {
        let host2 = try #require(n2.rooms["demo"])
        let bob = member(2, prefix: n2.clientPrefix)
        n2.join(bob, to: host2, name: "Bob", role: .editor, since: nil, at: MonotonicClock.now())
        #expect(bothTurn(until: { bob.welcomed && self.n2.cluster.replicas["demo"]?.owned == true }), "n2 never owned the room")

        let host1 = try #require(n1.rooms["demo"])
        let ann = member(1, prefix: n1.clientPrefix)
        n1.join(ann, to: host1, name: "Ann", role: .editor, since: nil, at: MonotonicClock.now())
        #expect(bothTurn(until: { ann.welcomed }), "n2 never admitted Ann")
        _ = drain(host1, ann.client)

        // n2 pauses. Ann's first set goes toward it and is never read.
        n1.receive(message(#"{"type":"set","seq":1,"control":"gain","value":0.3}"#), from: ann, in: host1, at: MonotonicClock.now())
        #expect(ann.relay.relayed.map(\.seq) == [1])
        // n2's lease lapses; n1 takes the room. Ann's second set reaches n1's authority
        // before anything else happens, so its ack rides n1's first delta.
        #expect(n1Turns(until: { self.n1.cluster.replicas["demo"]?.owned == true }), "n1 never took the room")
        n1.receive(message(#"{"type":"set","seq":2,"control":"gain","value":0.6}"#), from: ann, in: host1, at: MonotonicClock.now())
        #expect(n1Turns(until: { ann.relay.relayed.isEmpty && self.committedGain(host1) == #"{"value":0.6}"# }),
                "Ann's messages were never both answered: \(ann.relay.relayed.map(\.seq))")

        let (rejected, ack) = drain(host1, ann.client)
        #expect(ack == 2)
        // Seq 1 never reached an owner that applied it: its answer says so (`unavailable`: n1
        // heard every publication since, and without WAIT a write is its publication). An ack
        // alone would have told Ann it was applied.
        #expect(rejected[1] == .unavailable)
        #expect(rejected[2] == nil)
        let log = try n1.cluster.store.redis.command([Array("XRANGE".utf8), Array(ClusterKeys.log("demo").utf8), Array("-".utf8), Array("+".utf8)])
        let states = strings(log).filter { $0.hasPrefix("{") }
        #expect(states.contains(#"{"value":0.6}"#) && !states.contains(#"{"value":0.3}"#), "the log: \(states)")
    }

    func strings(_ reply: RedisReply) -> [String] {
        if let text = reply.string { return [text] }
        return (reply.elements ?? []).flatMap(strings)
    }

    func committedGain(_ host: RoomHost) -> String {
        String(decoding: OutboundEncoder.state(host.room.committed[host.room.schema.index(of: "gain")!]), as: UTF8.self)
    }
}
