import Foundation

/// What a transport reports about one WebSocket connection, in order.
public enum TransportEvent: Sendable {
    /// The handshake completed.
    case opened
    /// One whole text message.
    case text([UInt8])
    /// The connection ended: the close code (1006 when there was none) and reason.
    case closed(code: Int, reason: String)
}

/// One open (or opening) WebSocket connection.
public protocol WebSocketConnection: Sendable {
    /// Queues one text message.
    func send(_ text: [UInt8])
    /// Closes with 1000; a `.closed` event follows.
    func close()
}

/// A one-shot timer set with `WebSocketTransport.schedule(after:_:)`.
public protocol TransportTimer: Sendable {
    /// Stops the timer if it has not fired yet (a timer already running is not stopped).
    func cancel()
}

/// Opens WebSocket connections speaking `tandem.v1`. A `RoomSession` needs only this
/// much, so that libwebsockets (Linux) and URLSessionWebSocketTask (Apple
/// platforms) sit behind one small seam.
///
/// The transport is also the session's clock: its token refresh, its reconnect
/// back-off and its calls of the token provider run where the transport says
/// (`schedule(after:_:)`, `executor`), never on a `Task.sleep` of Swift's
/// cooperative thread pool, so that a pool kept busy by the application (or by
/// blocking code on it) cannot make a refresh late and drop the connection.
/// A transport that does not provide them gets a serial Dispatch queue's.
public protocol WebSocketTransport: Sendable {
    /// Starts connecting to `url` (`ws://host:port/path?query`); every event,
    /// from any thread, goes to `events`.
    func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection

    /// Runs `action` once, `seconds` from now (as soon as possible when ≤ 0,
    /// but never on the caller's stack), on a thread of the transport's own,
    /// not on Swift's cooperative pool. `action` must not block: it may share
    /// that thread with the transport's I/O.
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer

    /// The executor the session's async work prefers (`Task(executorPreference:)`):
    /// asking the token provider for a token and sending it. Backed by the same
    /// thread as `schedule(after:_:)`.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var executor: any TaskExecutor { get }
}

extension WebSocketTransport {
    /// The default: a serial Dispatch queue's timer, shared by every such transport.
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer {
        DispatchClock.shared.schedule(after: seconds, action)
    }

    /// The default: jobs run on the same serial Dispatch queue.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var executor: any TaskExecutor { DispatchClock.shared }
}

/// Timers and a task executor on one serial Dispatch queue. Dispatch's own
/// threads are not Swift's cooperative pool: work here is not delayed by tasks
/// that block the pool. The default of transports without a thread of their own.
final class DispatchClock: Sendable {
    static let shared = DispatchClock(label: "tandem-client-clock")
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer {
        let timer = DispatchTransportTimer(action)
        queue.asyncAfter(deadline: .now() + max(0, seconds)) { timer.fire() }
        return timer
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension DispatchClock: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// One `DispatchClock` timer: fires once unless cancelled first.
final class DispatchTransportTimer: TransportTimer, @unchecked Sendable {
    // Under `lock`: the action until it fired or was cancelled.
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    func fire() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { self.action = nil }
            return self.action
        }
        action?()
    }

    func cancel() {
        lock.withLock { action = nil }
    }
}
