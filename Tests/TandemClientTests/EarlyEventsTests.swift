import TandemTestSupport
import Foundation
import Testing
import TandemClient

/// The transport's thread can deliver a connection's first events, the welcome
/// among them, before `open` has returned that connection to the room (a busy
/// machine deschedules the caller at just that moment). The room must still
/// write to that connection.
@Suite struct EarlyEventsTests {
    /// LwsTransport, but `open` returns only once the connection's first text
    /// message (the welcome) has been delivered: the race, every time.
    struct LateOpenTransport: WebSocketTransport {
        let inner = LwsTransport()

        func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection {
            let delivered = DispatchSemaphore(value: 0)
            let once = Once()
            let connection = try inner.open(url: url) { event in
                events(event)
                if case .text = event, once.first() { delivered.signal() }
            }
            #expect(delivered.wait(timeout: .now() + 30) == .success, "no welcome within 30 s")
            return connection
        }

        func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer {
            inner.schedule(after: seconds, action)
        }

        var executor: any TaskExecutor { inner.executor }
    }

    final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false

        func first() -> Bool { lock.withLock { defer { done = true }; return !done } }
    }

    // A guard against the hang the fix removed (the set waited for ever), not a
    // speed goal: on a loaded machine the server's start and the connect alone
    // took 115 s once, so the limit is generous.
    @Test(.timeLimit(.minutes(5)))
    func aWelcomeBeforeOpenReturnsStillConnects() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let room = try await RoomSession.connect(roomURL(server), name: "Ann", transport: LateOpenTransport())
        defer { room.close() }
        // Before the fix the room had no connection to write to: this set waited for ever.
        try await room.control("gain").set(0.25)
        #expect(room.control("gain").value == 0.25)
    }
}
