import TandemTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TandemClient

/// The transport as the room's clock: timers and an executor on the
/// transport's own thread (LwsTransport), or on a Dispatch queue (the default
/// of a transport without one); neither waits for Swift's cooperative pool.
@Suite struct TransportClockTests {
    /// What timers and jobs saw, in the order they ran.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(String, String)] = []

        func note(_ label: String) { lock.withLock { entries.append((label, threadID())) } }
        var labels: [String] { lock.withLock { entries.map(\.0) } }
        var threads: Set<String> { lock.withLock { Set(entries.map(\.1)) } }
    }

    /// A transport that only opens connections: it gets the protocol's default clock.
    struct PlainTransport: WebSocketTransport {
        let inner = LwsTransport()

        func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection {
            try inner.open(url: url, events: events)
        }
    }

    @Test func timersRunInOrderOnTheServiceThreadAndCancelledOnesNever() async {
        let transport = LwsTransport()
        let log = Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = transport.schedule(after: 0.3) { log.note("0.3"); done.resume() }
            _ = transport.schedule(after: 0.1) { log.note("0.1") }
            let cancelled = transport.schedule(after: 0.15) { log.note("cancelled") }
            _ = transport.schedule(after: 0.2) { log.note("0.2") }
            _ = transport.schedule(after: 0) { log.note("0") }
            cancelled.cancel()
        }
        #expect(log.labels == ["0", "0.1", "0.2", "0.3"])
        #expect(log.threads.count == 1)
        #expect(!log.threads.contains(threadID()))
    }

    @Test func theExecutorIsTheServiceThread() async {
        let transport = LwsTransport()
        let log = Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = transport.schedule(after: 0) { log.note("timer"); done.resume() }
        }
        let job = await Task(executorPreference: transport.executor) { () -> String in
            await Task.yield()
            return threadID()
        }.value
        #expect(log.threads == [job])
    }

    @Test func theServiceThreadEndsWithTheLastCopyOfTheTransport() async {
        var transport: LwsTransport? = LwsTransport()
        let log = Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = transport?.schedule(after: 0) { log.note("timer"); done.resume() }
        }
        let thread = log.threads.first ?? ""
        #expect(FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)"))
        transport = nil
        #expect(await eventually(timeout: 10) { !FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)") },
                "thread \(thread) still runs")
    }

    /// Between timers the thread waits in lws (poll), it does not spin.
    @Test func anIdleServiceThreadSleeps() async throws {
        let transport = LwsTransport()
        let log = Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = transport.schedule(after: 0) { log.note("timer"); done.resume() }
        }
        let thread = try #require(log.threads.first)
        let far = transport.schedule(after: 60) { log.note("far") }
        defer { far.cancel() }
        let before = try #require(cpuTicks(of: thread))
        // Waiting on the clock itself: a second of idleness to measure.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let after = try #require(cpuTicks(of: thread))
        #expect(after - before <= 10, "the idle service thread used \(after - before) ticks of CPU in a second")
    }
}

/// The calling thread's id (Linux: from /proc/thread-self, "PID/task/TID").
func threadID() -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    guard n > 0 else { return "?" }
    return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last.map(String.init) ?? "?"
}

/// A `RoomSession` and its transport's thread.
@Suite struct RoomSessionClockTests {
    @Test func aSessionNobodyHoldsEndsItsTransportsThread() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        var transport: LwsTransport? = LwsTransport()
        let log = TransportClockTests.Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = transport?.schedule(after: 0) { log.note("timer"); done.resume() }
        }
        let thread = log.threads.first ?? ""
        var room: RoomSession? = try await RoomSession.connect(roomURL(server), name: "Ann", transport: transport)
        transport = nil
        try await room?.control("gain").set(0.3)
        #expect(FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)"))
        room = nil
        #expect(await eventually(timeout: 10) { !FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)") },
                "thread \(thread) still runs")
    }

    @Test func aTimerOnTheServiceThreadMayCloseTheSession() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let transport = LwsTransport()
        let room = try await RoomSession.connect(roomURL(server), name: "Ann", transport: transport)
        let log = TransportClockTests.Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = transport.schedule(after: 0) {
                room.close()
                log.note("closed")
                // The loop still runs: the next timer fires.
                _ = transport.schedule(after: 0.01) { log.note("after"); done.resume() }
            }
        }
        #expect(log.labels == ["closed", "after"])
        await #expect(throws: TandemError.closed) { try await room.control("gain").set(0.3) }
    }
}

/// LwsTransport's connections on its one service thread.
@Suite struct LwsConnectionTests {
    /// What a connection reported.
    final class Events: @unchecked Sendable {
        private let condition = NSCondition()
        private var seen: [TransportEvent] = []

        func add(_ event: TransportEvent) {
            condition.lock()
            seen.append(event)
            condition.broadcast()
            condition.unlock()
        }

        var all: [TransportEvent] {
            condition.lock()
            defer { condition.unlock() }
            return seen
        }
    }

    /// A listening socket that accepts nothing and answers nothing: a handshake to it never completes.
    static func silentListener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw ServerProcessError(description: "cannot listen") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aConnectionClosedBeforeItsHandshakeEndsIsReportedClosed() async throws {
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let transport = LwsTransport()
        let events = Events()
        let connection = try transport.open(url: "ws://127.0.0.1:\(port)/rooms/demo") { events.add($0) }
        connection.send(Array(#"{"type":"set"}"#.utf8))
        // The TCP connection is up (waiting in the listener's backlog); the handshake's answer never comes.
        #expect(await eventually(timeout: 30) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 1
        })
        connection.close()
        #expect(await eventually(timeout: 30) { events.all.contains { if case .closed = $0 { true } else { false } } })
        #expect(!events.all.contains { if case .opened = $0 { true } else { false } })
        #expect(!events.all.contains { if case .closed(_, "closed before connecting") = $0 { true } else { false } },
                "closed before lws started it: \(events.all)")
    }

    @Test func aConnectionNobodyListensForIsReportedClosed() async throws {
        let (fd, port) = try Self.silentListener()
        close(fd)
        let transport = LwsTransport()
        let events = Events()
        _ = try transport.open(url: "ws://127.0.0.1:\(port)/rooms/demo") { events.add($0) }
        #expect(await eventually(timeout: 30) { events.all.contains { if case .closed(code: 1006, _) = $0 { true } else { false } } })
    }

    @Test func oneTransportServesTwoRooms() async throws {
        let server = try ServerProcess.start()
        defer { _ = server.stop() }
        let transport = LwsTransport()
        let ann = try await RoomSession.connect(roomURL(server), name: "Ann", transport: transport)
        let bob = try await RoomSession.connect(roomURL(server), name: "Bob", transport: transport)
        defer { ann.close(); bob.close() }
        let seen = Collector(bob.control("gain").changes)
        try await ann.control("gain").set(0.25)
        #expect(await eventually { seen.all.map(\.value) == [0.25] })
        try await bob.control("gain").set(0.75)
        #expect(await eventually { ann.control("gain").value == 0.75 })
    }
}

/// User plus system CPU time (clock ticks) of thread `id` of this process, from /proc/self/task/ID/stat.
func cpuTicks(of id: String) -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    // After the command's ")": state is field 3, utime 14 and stime 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
}
