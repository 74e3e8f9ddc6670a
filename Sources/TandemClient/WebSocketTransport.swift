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

/// Opens WebSocket connections speaking `tandem.v1`. The room only needs this
/// much, so that libwebsockets (Linux) and URLSessionWebSocketTask (Apple
/// platforms) sit behind one small seam.
public protocol WebSocketTransport: Sendable {
    /// Starts connecting to `url` (`ws://host:port/path?query`); every event,
    /// from any thread, goes to `events`.
    func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection
}
