import TandemRedisTestSupport
@testable import TandemRedis
import XCTest

/// Sentinel's pure parts (addresses, answers, switch messages, ROLE), the URL
/// that gives only a password and a database, the delivery probe's bookkeeping,
/// and routes against real redis-servers: a named connection moved on demand,
/// a replica refused by the ROLE check, a new primary followed.
final class RedisSentinelTests: XCTestCase {
    typealias Address = RedisRoute.Address

    // MARK: Pure

    func testSentinelAddressesParseWithDefaultPortsAndIPv6() throws {
        let parsed = try RedisSentinel.parseAddresses("10.0.0.1:26380, sentinel-b,[::1]:5000").get()
        XCTAssertEqual(parsed, [Address(host: "10.0.0.1", port: 26380), Address(host: "sentinel-b", port: 26379),
                                Address(host: "::1", port: 5000)])
        XCTAssertEqual(parsed[2].description, "[::1]:5000")
    }

    func testBadSentinelAddressesAreRefused() {
        for text in ["", "a:1,,b:2", "host:0", "host:99999", "host:x", "a b:1", "a:1,a:1", "redis://a:1"] {
            if case .success = RedisSentinel.parseAddresses(text) { XCTFail("'\(text)' was accepted") }
        }
    }

    func testMasterNames() {
        XCTAssertTrue(RedisSentinel.isValidMasterName("mymaster"))
        XCTAssertTrue(RedisSentinel.isValidMasterName("tandem-prod.eu_1"))
        XCTAssertFalse(RedisSentinel.isValidMasterName(""))
        XCTAssertFalse(RedisSentinel.isValidMasterName("my master"))
        XCTAssertFalse(RedisSentinel.isValidMasterName(String(repeating: "m", count: 65)))
    }

    func testGetMasterAddrByNameAnswers() {
        let good = RedisReply.array([.bulk(Array("127.0.0.1".utf8)), .bulk(Array("6380".utf8))])
        XCTAssertEqual(try RedisSentinel.primary(from: good).get(), Address(host: "127.0.0.1", port: 6380))
        XCTAssertThrowsError(try RedisSentinel.primary(from: .null).get()) { error in
            XCTAssertEqual("\(error)", "it does not know the master")
        }
        XCTAssertThrowsError(try RedisSentinel.primary(from: .error("ERR unknown command")).get())
        XCTAssertThrowsError(try RedisSentinel.primary(from: .array([.bulk(Array("h".utf8)), .bulk(Array("0".utf8))])).get())
        XCTAssertThrowsError(try RedisSentinel.primary(from: .array([.bulk(Array("h".utf8))])).get())
    }

    func testSwitchMasterMessages() throws {
        let change = try XCTUnwrap(RedisSentinel.switchMaster("mymaster 127.0.0.1 6379 127.0.0.1 6380"))
        XCTAssertEqual(change.master, "mymaster")
        XCTAssertEqual(change.old, Address(host: "127.0.0.1", port: 6379))
        XCTAssertEqual(change.new, Address(host: "127.0.0.1", port: 6380))
        XCTAssertNil(RedisSentinel.switchMaster("mymaster 127.0.0.1 6379"))
        XCTAssertNil(RedisSentinel.switchMaster("mymaster a b c d"))
    }

    func testRoleAnswers() {
        XCTAssertNil(RedisRoute.notPrimary(.array([.bulk(Array("master".utf8)), .integer(0), .array([])])))
        let replica = RedisReply.array([.bulk(Array("slave".utf8)), .bulk(Array("10.0.0.2".utf8)), .integer(6379),
                                        .bulk(Array("connected".utf8)), .integer(10)])
        XCTAssertEqual(RedisRoute.notPrimary(replica), "a replica of 10.0.0.2:6379, not the primary")
        XCTAssertEqual(RedisRoute.notPrimary(.array([.bulk(Array("sentinel".utf8)), .array([])])), "a sentinel, not the primary")
        XCTAssertEqual(RedisRoute.notPrimary(.error("ERR nope")), "ROLE failed: ERR nope")
    }

    func testAURLMayGiveOnlyThePasswordAndTheDatabase() throws {
        let url = try RedisURL(parsing: "redis://:s%40cret@/3", hostOptional: true)
        XCTAssertEqual(url.host, "")
        XCTAssertEqual(url.password, "s@cret")
        XCTAssertEqual(url.db, 3)
        XCTAssertEqual(try RedisURL(parsing: "redis:///2", hostOptional: true).db, 2)
        XCTAssertEqual(try RedisURL(parsing: "redis://", hostOptional: true).host, "")
        XCTAssertEqual(try RedisURL(parsing: "redis://h:1/2", hostOptional: true).host, "h")
        XCTAssertThrowsError(try RedisURL(parsing: "redis:///2"))
        XCTAssertThrowsError(try RedisURL(parsing: "redis:///x", hostOptional: true))

        var sentinel = url
        sentinel.route = RedisRoute(.sentinel(master: "mymaster", sentinels: [Address(host: "a", port: 26379), Address(host: "b", port: 26380)]))
        XCTAssertEqual(sentinel.description, "redis-sentinel://:***@a:26379,b:26380/mymaster/3")
        XCTAssertNotEqual(sentinel, url)
        var same = url
        same.route = sentinel.route
        XCTAssertEqual(same, sentinel)
    }

    func testTheDeliveryWatch() {
        var watch = DeliveryWatch(bound: 3)
        XCTAssertNil(watch.stalled(at: 100))
        let first = watch.send(at: 0)
        let second = watch.send(at: 1)
        XCTAssertNil(watch.stalled(at: 2.9))
        XCTAssertEqual(watch.stalled(at: 3), 3)
        // Hearing the second answers the first too.
        XCTAssertTrue(watch.heard(second, at: 3.5))
        XCTAssertEqual(watch.lastRoundTrip, 2.5)
        XCTAssertFalse(watch.heard(first, at: 3.6))
        XCTAssertNil(watch.stalled(at: 10))
        // Nothing back for a long time: the oldest probe sent says for how long, however many went out.
        let third = watch.send(at: 20)
        for i in 1...200 { _ = watch.send(at: 20 + Double(i)) }
        XCTAssertEqual(watch.outstanding.count, DeliveryWatch.limit)
        XCTAssertEqual(watch.outstanding.first?.token, third)
        XCTAssertEqual(watch.stalled(at: 221), 201)
        watch.reset()
        XCTAssertNil(watch.stalled(at: 300))
        XCTAssertFalse(watch.heard(third, at: 300))
    }

    // MARK: Against real servers

    func testAFixedRouteReconnectsANamedConnectionAtOnce() throws {
        let server = try RedisServerProcess()
        try server.start()
        let loop = TestLoop()
        defer { loop.close() }
        var url = try RedisURL(parsing: server.url)
        let route = RedisRoute(.fixed(Address(host: url.host, port: url.port)))
        url.route = route
        let subscriber = RedisSubscriber(url: url, loop: loop.loop, name: "sub")
        let commands = RedisConnection(url: url, loop: loop.loop, name: "cmd")
        var states: [RedisConnection.State] = []
        var heard: [String] = []
        subscriber.onState = { states.append($0) }
        subscriber.onMessage = { _, payload in heard.append(String(decoding: payload, as: UTF8.self)) }
        subscriber.subscribe("c")
        subscriber.start()
        commands.start()
        XCTAssertTrue(loop.run(until: { subscriber.state == .ready && commands.state == .ready }))
        XCTAssertEqual(Set(route.connections.map(\.name)), ["sub", "cmd"])

        route.reconnect("sub", reason: "test")
        XCTAssertEqual(subscriber.state, .down("test"))
        XCTAssertEqual(commands.state, .ready)
        XCTAssertTrue(loop.run(until: { subscriber.state == .ready }, timeout: 5), "back within the first backoff")
        var published = 0
        XCTAssertTrue(loop.run(until: {
            commands.send(["PUBLISH", "c", "after"]) { _ in }
            published += 1
            loop.run(for: 0.02)
            return heard.contains("after")
        }), "messages flow again on the new connection (\(published) published)")
        XCTAssertEqual(states.filter { $0 == .ready }.count, 2)
        subscriber.stop()
        commands.stop()
    }

    func testASentinelRouteRefusesAReplicaAndFollowsTheNewPrimary() throws {
        let primary = try RedisServerProcess()
        try primary.start()
        let replica = try RedisServerProcess()
        try replica.start(extra: ["--replicaof", "127.0.0.1", String(primary.port)])
        let loop = TestLoop()
        defer { loop.close() }
        let route = RedisRoute(.sentinel(master: "m", sentinels: [Address(host: "127.0.0.1", port: 1)]))
        var doubts: [String] = []
        route.onDoubt = { doubts.append($0) }
        var url = RedisURL(host: "", port: 0)
        url.route = route
        route.setPrimary(Address(host: "127.0.0.1", port: replica.port), reason: "test")
        let commands = RedisConnection(url: url, loop: loop.loop, name: "cmd")
        var downs: [String] = []
        commands.onState = { if case let .down(reason) = $0 { downs.append(reason) } }
        commands.start()
        XCTAssertTrue(loop.run(until: { downs.contains { $0.contains("ROLE: a replica of 127.0.0.1:\(primary.port)") } }, timeout: 10), "\(downs)")
        XCTAssertNotEqual(commands.state, .ready)
        // The blocking connection refuses it too.
        XCTAssertThrowsError(try RedisBlocking(url: url, timeout: 1)) { error in
            XCTAssertTrue("\(error)".contains("a replica"), "\(error)")
        }

        route.setPrimary(Address(host: "127.0.0.1", port: primary.port), reason: "test")
        XCTAssertTrue(loop.run(until: { commands.state == .ready }, timeout: 5))
        var answer: RedisReply?
        commands.send(["SET", "k", "v"]) { answer = $0 }
        XCTAssertTrue(loop.run(until: { answer != nil }))
        XCTAssertEqual(answer, .status("OK"))
        XCTAssertFalse(doubts.isEmpty, "connecting again made the route doubt its primary")
        let blocking = try RedisBlocking(url: url, timeout: 1)
        XCTAssertEqual(try blocking.command([Array("GET".utf8), Array("k".utf8)]), .bulk(Array("v".utf8)))
        commands.stop()
    }
}
