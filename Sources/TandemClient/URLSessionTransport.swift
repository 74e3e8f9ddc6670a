#if canImport(Darwin)
import Foundation

/// Apple platforms: URLSessionWebSocketTask, offering `tandem.v1`. A `RoomSession`'s
/// timers and async work run on this transport's own serial Dispatch queue
/// (not Swift's cooperative pool).
public struct URLSessionTransport: WebSocketTransport {
    private let clock = DispatchClock(label: "tandem-urlsession")

    public init() {}

    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any TransportTimer {
        clock.schedule(after: seconds, action)
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var executor: any TaskExecutor { clock }

    public func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection {
        guard let address = URL(string: url) else { throw .badURL(url) }
        let task = URLSession.shared.webSocketTask(with: address, protocols: ["tandem.v1"])
        let connection = URLSessionConnection(task: task, events: events)
        task.resume()
        connection.receive()
        return connection
    }
}

final class URLSessionConnection: WebSocketConnection, @unchecked Sendable {
    let task: URLSessionWebSocketTask
    let events: @Sendable (TransportEvent) -> Void
    private let lock = NSLock()
    private var opened = false

    init(task: URLSessionWebSocketTask, events: @escaping @Sendable (TransportEvent) -> Void) {
        self.task = task
        self.events = events
    }

    func receive() {
        task.receive { [self] result in
            switch result {
            case let .success(message):
                if lock.withLock({ let first = !opened; opened = true; return first }) { events(.opened) }
                if case let .string(text) = message { events(.text(Array(text.utf8))) }
                receive()
            case let .failure(error):
                let code = task.closeCode.rawValue
                let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? error.localizedDescription
                events(.closed(code: code == 0 ? 1006 : code, reason: reason))
            }
        }
    }

    func send(_ text: [UInt8]) {
        task.send(.string(String(decoding: text, as: UTF8.self))) { _ in }
    }

    func close() {
        task.cancel(with: .normalClosure, reason: nil)
    }
}
#endif
