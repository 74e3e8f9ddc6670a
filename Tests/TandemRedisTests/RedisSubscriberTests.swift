import TandemRedisTestSupport
import TandemRedis
import XCTest

/// Pub/sub against a real redis-server: binary payloads, patterns, resubscribing after a restart.
final class RedisSubscriberTests: XCTestCase {
    private struct Message: Equatable {
        var channel: [UInt8]
        var payload: [UInt8]
    }

    func testMessagesArriveAndSurviveARestart() throws {
        let server = try RedisServerProcess()
        try server.start()
        let loop = TestLoop()
        defer { loop.close() }
        let url = try RedisURL(parsing: server.url)

        let publisher = RedisConnection(url: url, loop: loop.loop, name: "pub")
        defer { publisher.stop() }
        publisher.start()
        let subscriber = RedisSubscriber(url: url, loop: loop.loop, name: "sub")
        defer { subscriber.stop() }
        var messages: [Message] = []
        var states: [RedisConnection.State] = []
        subscriber.onMessage = { messages.append(Message(channel: $0, payload: $1)) }
        subscriber.onState = { states.append($0) }
        subscriber.subscribe("room:1")  // before start: sent once ready
        subscriber.start()
        XCTAssertTrue(loop.run(until: { subscriber.state == .ready && publisher.state == .ready }))
        subscriber.subscribe("room:2")  // while ready
        subscriber.psubscribe("hall:*")

        func publish(_ channel: String, _ payload: [UInt8], expect receivers: Int = 1) {
            var answer: RedisReply?
            // A subscribe is confirmed once PUBLISH counts its receiver, an unsubscribe once it
            // counts none: both are commands on another connection than the PUBLISH, which Redis
            // may run first (a loaded machine did, once, for the unsubscribe).
            let deadline = Date().addingTimeInterval(3)
            repeat {
                answer = nil
                publisher.send([Array("PUBLISH".utf8), Array(channel.utf8), payload]) { answer = $0 }
                XCTAssertTrue(loop.run(until: { answer != nil }))
            } while answer != .integer(receivers) && Date() < deadline
            XCTAssertEqual(answer, .integer(receivers), "PUBLISH \(channel)")
        }

        let binary = (0...255).map { UInt8($0) }
        publish("room:1", binary)
        XCTAssertTrue(loop.run(until: { messages.count == 1 }))
        XCTAssertEqual(messages.last, Message(channel: Array("room:1".utf8), payload: binary))
        messages = []
        publish("room:2", Array("two".utf8))
        publish("hall:9", [0, 1, 2])
        XCTAssertTrue(loop.run(until: { messages.count == 2 }))
        XCTAssertEqual(messages, [Message(channel: Array("room:2".utf8), payload: Array("two".utf8)),
                                  Message(channel: Array("hall:9".utf8), payload: [0, 1, 2])])

        subscriber.unsubscribe("room:2")
        publish("room:2", Array("gone".utf8), expect: 0) // a "gone" that beat the unsubscribe may arrive: not checked

        // Restart: down, then ready again, subscribed again to what it had.
        messages = []
        server.kill()
        XCTAssertTrue(loop.run(until: { if case .down = subscriber.state { true } else { false } }))
        try server.start()
        XCTAssertTrue(loop.run(until: { subscriber.state == .ready && publisher.state == .ready }, timeout: 30))
        XCTAssertEqual(Array(states.prefix(2)), [.connecting, .ready])
        XCTAssertEqual(states.last, .ready)
        XCTAssertTrue(states.contains(.down("Server closed the connection")), "\(states)")
        publish("room:1", Array("again".utf8))
        publish("hall:x", Array("pattern again".utf8))
        publish("room:2", Array("still gone".utf8), expect: 0)
        XCTAssertTrue(loop.run(until: { messages.count == 2 }))
        XCTAssertEqual(messages, [Message(channel: Array("room:1".utf8), payload: Array("again".utf8)),
                                  Message(channel: Array("hall:x".utf8), payload: Array("pattern again".utf8))])
    }
}
