import TandemRedisTestSupport
import TandemRedis
import XCTest

/// TandemRedis against a real redis-server, on a libuv loop driven by the test.
final class RedisConnectionTests: XCTestCase {
    private var server: RedisServerProcess!
    private var loop: TestLoop!

    override func setUpWithError() throws {
        server = try RedisServerProcess()
        try server.start()
        loop = TestLoop()
    }

    override func tearDown() {
        loop?.close()
        loop = nil
        server = nil
    }

    private func connect(_ url: String? = nil, name: String = "test") throws -> RedisConnection {
        let connection = RedisConnection(url: try RedisURL(parsing: url ?? server.url), loop: loop.loop, name: name)
        connection.start()
        XCTAssertTrue(loop.run(until: { connection.state == .ready }), "not ready: \(connection.state)")
        return connection
    }

    /// Sends and runs the loop until the reply.
    private func call(_ connection: RedisConnection, _ args: [[UInt8]], file: StaticString = #filePath,
                      line: UInt = #line) -> RedisReply? {
        var answer: RedisReply?
        connection.send(args) { answer = $0 }
        XCTAssertTrue(loop.run(until: { answer != nil }), "no reply to \(args.first.map { String(decoding: $0, as: UTF8.self) } ?? "")",
                      file: file, line: line)
        return answer
    }

    private func call(_ connection: RedisConnection, _ args: [String], file: StaticString = #filePath,
                      line: UInt = #line) -> RedisReply? {
        call(connection, args.map { Array($0.utf8) }, file: file, line: line)
    }

    func testSetGetRoundTrip() throws {
        let redis = try connect()
        defer { redis.stop() }
        XCTAssertEqual(call(redis, ["SET", "greeting", "hello"]), .status("OK"))
        XCTAssertEqual(call(redis, ["GET", "greeting"]), .bulk(Array("hello".utf8)))
        XCTAssertEqual(call(redis, ["GET", "greeting"])?.string, "hello")
        XCTAssertEqual(call(redis, ["GET", "missing"]), .null)
    }

    func testBulkIsBinarySafe() throws {
        let redis = try connect()
        defer { redis.stop() }
        let bytes = (0...255).map { UInt8($0) }
        let key = [0, 13, 10, 255] + Array("key".utf8)
        XCTAssertEqual(call(redis, [Array("SET".utf8), key, bytes]), .status("OK"))
        XCTAssertEqual(call(redis, [Array("GET".utf8), key]), .bulk(bytes))
        XCTAssertEqual(call(redis, [Array("STRLEN".utf8), key]), .integer(256))
        XCTAssertEqual(call(redis, [Array("SET".utf8), Array("empty".utf8), []]), .status("OK"))
        XCTAssertEqual(call(redis, ["GET", "empty"]), .bulk([]))
    }

    func testArraysAndIntegers() throws {
        let redis = try connect()
        defer { redis.stop() }
        XCTAssertEqual(call(redis, ["RPUSH", "list", "a", "b", "c"]), .integer(3))
        XCTAssertEqual(call(redis, ["INCRBY", "counter", "-42"])?.int, -42)
        XCTAssertEqual(call(redis, ["LRANGE", "list", "0", "-1"]),
                       .array([.bulk(Array("a".utf8)), .bulk(Array("b".utf8)), .bulk(Array("c".utf8))]))
        XCTAssertEqual(call(redis, ["MGET", "list-missing", "counter"]), .array([.null, .bulk(Array("-42".utf8))]))
        XCTAssertEqual(call(redis, ["LRANGE", "nothing", "0", "-1"]), .array([]))
        // Nested arrays.
        XCTAssertEqual(call(redis, ["EVAL", "return {1, {'x', 2}}", "0"]),
                       .array([.integer(1), .array([.bulk(Array("x".utf8)), .integer(2)])]))
    }

    func testErrorReplies() throws {
        let redis = try connect()
        defer { redis.stop() }
        XCTAssertEqual(call(redis, ["SET", "text", "x"]), .status("OK"))
        let wrongType = call(redis, ["LPUSH", "text", "y"])
        XCTAssertEqual(wrongType?.isError, true)
        XCTAssertTrue(wrongType?.errorMessage?.hasPrefix("WRONGTYPE") ?? false, "\(String(describing: wrongType))")
        let unknown = call(redis, ["NOSUCHCOMMAND"])
        XCTAssertTrue(unknown?.errorMessage?.hasPrefix("ERR unknown command") ?? false, "\(String(describing: unknown))")
        // The connection goes on after errors.
        XCTAssertEqual(call(redis, ["PING"]), .status("PONG"))
    }

    func testPipelinedRepliesKeepTheirOrder() throws {
        let redis = try connect()
        defer { redis.stop() }
        var got: [Int] = []
        for _ in 1...200 { redis.send(["INCR", "n"]) { got.append($0.int ?? -1) } }
        XCTAssertTrue(loop.run(until: { got.count == 200 }))
        XCTAssertEqual(got, Array(1...200))
    }

    func testEvalShaFallsBackToEvalOnNoScript() throws {
        let redis = try connect()
        defer { redis.stop() }
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        // The local SHA-1 is Redis' own.
        XCTAssertEqual(call(redis, ["SCRIPT", "LOAD", script.source])?.string, script.sha1)
        XCTAssertEqual(call(redis, ["SCRIPT", "FLUSH"]), .status("OK"))

        func eval(_ by: Int) -> RedisReply? {
            var answer: RedisReply?
            redis.eval(script, keys: [Array("counter".utf8)], args: [Array(String(by).utf8)]) { answer = $0 }
            XCTAssertTrue(loop.run(until: { answer != nil }))
            return answer
        }
        XCTAssertEqual(eval(5), .integer(5))  // NOSCRIPT, then EVAL
        XCTAssertEqual(call(redis, ["SCRIPT", "EXISTS", script.sha1]), .array([.integer(1)]))
        XCTAssertEqual(eval(2), .integer(7))  // EVALSHA
        XCTAssertEqual(call(redis, ["SCRIPT", "FLUSH"]), .status("OK"))
        XCTAssertEqual(eval(3), .integer(10))  // NOSCRIPT again, EVAL again
        // A script error is a reply, not a fallback.
        var failed: RedisReply?
        redis.eval(RedisScript("return redis.call('NOSUCH')"), keys: [], args: []) { failed = $0 }
        XCTAssertTrue(loop.run(until: { failed != nil }))
        XCTAssertEqual(failed?.isError, true)
    }

    func testRepliesAreReleasedAfterTheirCallback() throws {
        final class Token {}
        let redis = try connect()
        weak var answered: Token?
        weak var dropped: Token?
        var done = false
        do {
            let token = Token()
            answered = token
            redis.send(["PING"]) { _ in withExtendedLifetime(token) { done = true } }
        }
        XCTAssertTrue(loop.run(until: { done }))
        XCTAssertNil(answered, "the reply's box leaked")
        do {
            let token = Token()
            dropped = token
            redis.send(["BLPOP", "never", "0"]) { _ in withExtendedLifetime(token) {} }
        }
        loop.run(for: 0.05)
        redis.stop()
        XCTAssertNil(dropped, "a pending reply's box leaked after stop()")
    }

    func testStopFailsPendingRepliesWithConnectionClosed() throws {
        let redis = try connect()
        var blocked: RedisReply?
        redis.send(["BLPOP", "never", "0"]) { blocked = $0 }
        loop.run(for: 0.05)
        XCTAssertNil(blocked)
        redis.stop()
        XCTAssertEqual(blocked, .error("connection closed"))
        XCTAssertEqual(redis.state, .down("connection closed"))
        // No reconnect, and sends fail on a later turn, not inside send.
        var after: RedisReply?
        redis.send(["PING"]) { after = $0 }
        XCTAssertNil(after)
        XCTAssertTrue(loop.run(until: { after != nil }))
        XCTAssertEqual(after, .error("redis unavailable: connection closed"))
        loop.run(for: 0.2)
        XCTAssertEqual(redis.state, .down("connection closed"))
    }

    func testStopInsideAReplyCallback() throws {
        let redis = try connect()
        var first: RedisReply?
        var second: RedisReply?
        redis.send(["PING"]) { reply in
            first = reply
            redis.stop()  // hiredis frees the context once this callback returns
        }
        redis.send(["BLPOP", "never", "0"]) { second = $0 }
        XCTAssertTrue(loop.run(until: { second != nil }))
        XCTAssertEqual(first, .status("PONG"))
        XCTAssertEqual(second, .error("connection closed"))
        XCTAssertEqual(redis.state, .down("connection closed"))
        loop.run(for: 0.1)
    }

    func testDroppingTheLastReferenceStops() throws {
        weak var gone: RedisConnection?
        var pending: RedisReply?
        do {
            let redis = try connect()
            gone = redis
            redis.send(["BLPOP", "never", "0"]) { pending = $0 }
            loop.run(for: 0.05)
        }
        XCTAssertNil(gone)
        XCTAssertEqual(pending, .error("connection closed"))
        loop.run(for: 0.1)
    }

    func testCommandsSentWhileConnectingGoOutOnceReady() throws {
        let redis = RedisConnection(url: try RedisURL(parsing: server.url), loop: loop.loop, name: "early")
        defer { redis.stop() }
        var states: [RedisConnection.State] = []
        redis.onState = { states.append($0) }
        redis.start()
        XCTAssertEqual(redis.state, .connecting)
        var answer: RedisReply?
        redis.send(["ECHO", "early"]) { answer = $0 }
        XCTAssertTrue(loop.run(until: { answer != nil }))
        XCTAssertEqual(answer?.string, "early")
        XCTAssertEqual(states, [.connecting, .ready])
    }

    func testSendWhileRedisIsUnreachable() throws {
        let port = try RedisServerProcess.freePort()
        let redis = RedisConnection(url: RedisURL(host: "127.0.0.1", port: port), loop: loop.loop, name: "nowhere")
        defer { redis.stop() }
        var states: [RedisConnection.State] = []
        redis.onState = { states.append($0) }
        redis.start()
        var early: RedisReply?
        redis.send(["PING"]) { early = $0 }
        XCTAssertTrue(loop.run(until: { early != nil }, timeout: 30))
        XCTAssertEqual(early, .error("redis unavailable: Connection refused"))
        XCTAssertEqual(states, [.connecting, .down("Connection refused")])
        var late: RedisReply?
        redis.send(["PING"]) { late = $0 }
        XCTAssertNil(late, "the error reply came inside send")
        XCTAssertTrue(loop.run(until: { late != nil }))
        XCTAssertEqual(late, .error("redis unavailable: Connection refused"))
        // Retries go on without a new state for the same reason.
        loop.run(for: 0.3)
        XCTAssertEqual(states, [.connecting, .down("Connection refused")])
    }

    func testConnectAndHandshakeTimeOutAfterASecond() throws {
        // A socket that listens but never accepts: the kernel completes the TCP handshake,
        // nobody ever answers the PING.
        let silent = try SilentListener()
        defer { silent.close() }
        let redis = RedisConnection(url: RedisURL(host: "127.0.0.1", port: silent.port), loop: loop.loop, name: "silent")
        defer { redis.stop() }
        var early: RedisReply?
        let started = Date()
        redis.start()
        redis.send(["PING"]) { early = $0 }
        XCTAssertTrue(loop.run(until: { redis.state != .connecting }, timeout: 30))
        // Not before the second it is given (how late after it, on a busy machine, is not asserted).
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.9)
        XCTAssertEqual(redis.state, .down("connect timed out after 1000 ms"))
        XCTAssertEqual(early, .error("redis unavailable: connect timed out after 1000 ms"))
    }

    func testHostNamesResolveOffTheLoop() throws {
        let redis = try connect("redis://localhost:\(server.port)")
        defer { redis.stop() }
        XCTAssertEqual(call(redis, ["PING"]), .status("PONG"))
        let nowhere = RedisConnection(url: RedisURL(host: "no-such-host.invalid", port: 6379), loop: loop.loop, name: "dns")
        defer { nowhere.stop() }
        nowhere.start()
        XCTAssertTrue(loop.run(until: { nowhere.state != .connecting }, timeout: 30))
        guard case let .down(reason) = nowhere.state else { return XCTFail("\(nowhere.state)") }
        XCTAssertTrue(reason.hasPrefix("cannot resolve the host") || reason.hasPrefix("connect timed out"), reason)
    }

    func testReconnectsAfterRedisRestarts() throws {
        let redis = try connect()
        defer { redis.stop() }
        var states: [RedisConnection.State] = []
        redis.onState = { states.append($0) }
        XCTAssertEqual(call(redis, ["SET", "k", "before"]), .status("OK"))

        var pending: RedisReply?
        redis.send(["BLPOP", "never", "0"]) { pending = $0 }
        loop.run(for: 0.05)
        server.kill()
        XCTAssertTrue(loop.run(until: { pending != nil }, timeout: 30))
        XCTAssertTrue(pending?.errorMessage?.hasPrefix("connection lost: ") ?? false, "\(String(describing: pending))")
        XCTAssertTrue(loop.run(until: { if case .down = redis.state { true } else { false } }))

        var whileDown: RedisReply?
        redis.send(["GET", "k"]) { whileDown = $0 }
        XCTAssertTrue(loop.run(until: { whileDown != nil }))
        XCTAssertTrue(whileDown?.errorMessage?.hasPrefix("redis unavailable: ") ?? false, "\(String(describing: whileDown))")

        loop.run(for: 0.3)  // a few attempts fail
        try server.start()
        XCTAssertTrue(loop.run(until: { redis.state == .ready }, timeout: 30), "\(redis.state)")
        XCTAssertEqual(states.first, .down("Server closed the connection"))
        XCTAssertEqual(states.last, .ready)
        XCTAssertEqual(call(redis, ["GET", "k"]), .null)  // a fresh server: nothing was saved
        XCTAssertEqual(call(redis, ["SET", "k", "after"]), .status("OK"))
    }
}

/// AUTH and SELECT from the URL.
final class RedisAuthTests: XCTestCase {
    func testPasswordAndDatabase() throws {
        let server = try RedisServerProcess()
        try server.start(extra: ["--requirepass", "s3cr@t"])
        let loop = TestLoop()
        defer { loop.close() }

        let redis = RedisConnection(url: try RedisURL(parsing: "redis://:s3cr%40t@127.0.0.1:\(server.port)/3"),
                                    loop: loop.loop, name: "auth")
        redis.start()
        XCTAssertTrue(loop.run(until: { redis.state == .ready }), "\(redis.state)")
        var done: RedisReply?
        redis.send(["SET", "in-three", "yes"]) { done = $0 }
        XCTAssertTrue(loop.run(until: { done != nil }))
        XCTAssertEqual(done, .status("OK"))
        var dbs: RedisReply?
        redis.send(["CLIENT", "INFO"]) { dbs = $0 }
        XCTAssertTrue(loop.run(until: { dbs != nil }))
        XCTAssertTrue(dbs?.string?.contains(" db=3 ") ?? false, "\(String(describing: dbs))")
        redis.stop()

        let wrong = RedisConnection(url: try RedisURL(parsing: "redis://:wrong@127.0.0.1:\(server.port)"),
                                    loop: loop.loop, name: "wrong")
        wrong.start()
        XCTAssertTrue(loop.run(until: { wrong.state != .connecting }))
        guard case let .down(reason) = wrong.state else { return XCTFail("\(wrong.state)") }
        XCTAssertTrue(reason.hasPrefix("AUTH failed: WRONGPASS"), reason)
        wrong.stop()

        let none = RedisConnection(url: RedisURL(host: "127.0.0.1", port: server.port), loop: loop.loop, name: "none")
        none.start()
        XCTAssertTrue(loop.run(until: { none.state != .connecting }))
        guard case let .down(noAuth) = none.state else { return XCTFail("\(none.state)") }
        XCTAssertTrue(noAuth.hasPrefix("PING failed: NOAUTH"), noAuth)
        none.stop()
    }
}
