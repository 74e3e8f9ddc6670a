import TandemTestSupport
import Foundation
import Testing
import TandemClient

/// Swift's cooperative thread pool held: more tasks that block their thread
/// than the pool has threads (`PoolBlocker`), from a plain thread that then
/// looks at what still happened. The client's timers (token refresh, reconnect
/// back-off) and its token provider calls run on its transport's own thread,
/// so a starved pool cannot make them late.
@Suite(.serialized)
struct PoolStarvationTests {
    /// What the plain thread saw while every thread of the cooperative pool was blocked.
    struct Starved: Sendable {
        var held = 0
        var stillStarved = false
        var tokens = 0
        var reconnected = false
        var client = ""
    }

    /// Scenario 8 with Swift's cooperative pool held: the refresh (and a reconnect's
    /// back-off) are timed on the transport's own thread, so a busy pool cannot make them late.
    /// A plain thread blocks every pool thread past the token's exp, drops a second
    /// room's connection, and looks at both rooms before letting the pool go.
    /// (Run with other suites, some pool threads may be blocked by their tests
    /// instead: the pool is starved all the same while blocking tasks still wait.)
    @Test func scenario8TokenRefreshWhileThePoolIsBlocked() async throws {
        let secretFile = try SecretFile()
        let secret = secretFile.secret
        let server = try ServerProcess.start(["--auth-secret-file", secretFile.path, "--auth-leeway", "0"])
        defer { _ = server.stop() }
        let lifetime = 3.0
        let provider = AuthScenarioTests.Provider(secret: secret, lifetime: lifetime)
        let room = try await RoomSession.connect(roomURL(server), tokenProvider: { provider.token() })
        defer { room.close() }
        let expiry = Date().addingTimeInterval(lifetime)
        // A second room behind a proxy, whose connection is cut while the pool is held.
        let proxy = try TCPProxy(upstream: server.port)
        defer { proxy.stop() }
        let patient = AuthScenarioTests.Provider(secret: secret, lifetime: 600)
        let other = try await RoomSession.connect("ws://127.0.0.1:\(proxy.port)/rooms/demo", tokenProvider: { patient.token() })
        defer { other.close() }
        let first = room.client
        let otherFirst = other.client
        let width = max(ProcessInfo.processInfo.activeProcessorCount, ProcessInfo.processInfo.processorCount)
        let seen = await withCheckedContinuation { (done: CheckedContinuation<Starved, Never>) in
            Thread {
                var seen = Starved()
                let blocker = PoolBlocker(tasks: 4 * width + 4)
                defer { blocker.release(); done.resume(returning: seen) }
                // Settle (a pool busy with other tests' work may give the blockers fewer threads).
                _ = blocker.waitUntilHeld(ProcessInfo.processInfo.activeProcessorCount, timeout: 1)
                proxy.dropAll()
                // The back-off (0.1 s) and the re-join need no pool thread.
                seen.reconnected = waitOnThisThread(timeout: 10) { other.client != otherFirst }
                // Past the first token's exp (no leeway) and the server's next check of it.
                Thread.sleep(until: expiry.addingTimeInterval(1))
                seen.tokens = provider.count
                seen.client = room.client
                seen.held = blocker.held
                seen.stillStarved = seen.held < blocker.total
            }.start()
        }
        // Blocking tasks queued before the window still waiting at its end: no pool thread was free in it.
        #expect(seen.stillStarved, "all \(seen.held) blocking tasks got a thread: the pool was not starved")
        #expect(seen.tokens >= 2, "no refresh while the pool was blocked")
        #expect(seen.reconnected, "no reconnect while the pool was blocked")
        #expect(seen.client == first)
        // The same connection, still up: a set is acknowledged without a reconnect.
        try await room.control("gain").set(0.9)
        #expect(room.client == first, "the connection dropped and came back")
        try await other.control("gain").set(0.8)
        #expect(other.control("gain").value == 0.8)
    }

    /// With every pool thread blocked, the transport's timers and executor (and the
    /// default Dispatch ones of a transport without a thread) still run.
    @Test func timersAndJobsRunWhileThePoolIsBlocked() async {
        let lws = LwsTransport()
        let plain = TransportClockTests.PlainTransport()
        let ran = await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
            Thread {
                let log = TransportClockTests.Log()
                let blocker = PoolBlocker(tasks: 4 * ProcessInfo.processInfo.activeProcessorCount + 4)
                defer { blocker.release(); done.resume(returning: log.labels.sorted()) }
                // Settle (a pool busy with other tests' work may give the blockers fewer threads).
                _ = blocker.waitUntilHeld(ProcessInfo.processInfo.activeProcessorCount, timeout: 1)
                for (name, transport) in [("lws", lws as any WebSocketTransport), ("default", plain)] {
                    _ = transport.schedule(after: 0.05) { log.note("\(name) timer") }
                    Task(executorPreference: transport.executor) { log.note("\(name) job") }
                }
                _ = waitOnThisThread(timeout: 10) { log.labels.count == 4 }
                // Blocking tasks still waiting: no pool thread was free meanwhile.
                if blocker.held == blocker.total { log.note("the pool was not starved") }
            }.start()
        }
        #expect(ran == ["default job", "default timer", "lws job", "lws timer"])
    }
}
