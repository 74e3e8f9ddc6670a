#if canImport(Glibc)
import Glibc
import Foundation
import CLibWebSockets
import CTandemShim

/// libwebsockets' client API: each connection has its own lws context and
/// service thread, so the room's callers never block on the loop. Other
/// threads hand messages over through a locked queue and `lws_cancel_service`.
public struct LwsTransport: WebSocketTransport {
    public init() {}

    public func open(url: String, events: @escaping @Sendable (TransportEvent) -> Void) throws(TandemError) -> any WebSocketConnection {
        guard let parts = URLComponents(string: url), let host = parts.host,
              parts.scheme == "ws" else {
            throw .badURL("\(url) (expected ws://host:port/rooms/ROOM)")
        }
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        let connection = LwsConnection(host: host, port: parts.port ?? 80, path: path, events: events)
        try connection.start()
        return connection
    }
}

/// One lws client connection and the thread that services it.
final class LwsConnection: WebSocketConnection, @unchecked Sendable {
    private let events: @Sendable (TransportEvent) -> Void
    private let hostC: UnsafeMutablePointer<CChar>
    private let hostHeaderC: UnsafeMutablePointer<CChar>
    private let pathC: UnsafeMutablePointer<CChar>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let port: Int
    private let pre = tandem_lws_pre()
    // Shared with other threads: only under `lock`.
    private let lock = NSLock()
    private var outbox: [[UInt8]] = []
    private var closing = false
    private var context: OpaquePointer?
    // The service thread's own.
    private var wsi: OpaquePointer?
    private var incoming: [UInt8] = []
    private var closeCode = 1006
    private var closeReason = ""
    private var finished = false

    init(host: String, port: Int, path: String, events: @escaping @Sendable (TransportEvent) -> Void) {
        self.events = events
        self.port = port
        hostC = strdup(host)
        hostHeaderC = strdup(port == 80 ? host : "\(host):\(port)")
        pathC = strdup(path)
        protocolName = strdup("tandem.v1")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = lwsClientCallback
    }

    deinit {
        free(hostC); free(hostHeaderC); free(pathC); free(protocolName)
        protocols.deallocate()
    }

    func start() throws(TandemError) {
        lws_set_log_level(0, nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        guard let context = lws_create_context(&info) else { throw .transport("cannot create a libwebsockets context") }
        lock.withLock { self.context = context }
        var connect = lws_client_connect_info()
        connect.context = context
        connect.address = UnsafePointer(hostC)
        connect.port = Int32(port)
        connect.path = UnsafePointer(pathC)
        connect.host = UnsafePointer(hostHeaderC)
        connect.protocol = UnsafePointer(protocolName)
        guard lws_client_connect_via_info(&connect) != nil else {
            lws_context_destroy(context)
            throw .transport("cannot start a connection to \(String(cString: hostC)):\(port)")
        }
        // The thread keeps the connection alive until its loop ends.
        let retained = Unmanaged.passRetained(self)
        let thread = Thread {
            let me = retained.takeRetainedValue()
            me.serve()
        }
        thread.name = "tandem-lws"
        thread.start()
    }

    private func serve() {
        guard let context = lock.withLock({ self.context }) else { return }
        while !finished, lws_service(context, 0) >= 0 {}
        lock.withLock { self.context = nil }
        lws_context_destroy(context)
        events(.closed(code: closeCode, reason: closeReason))
    }

    func send(_ text: [UInt8]) {
        lock.withLock {
            outbox.append(text)
            if let context { lws_cancel_service(context) }
        }
    }

    func close() {
        lock.withLock {
            closing = true
            if let context { lws_cancel_service(context) }
        }
    }

    fileprivate func handle(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            // Frames or a close asked for while connecting: their wake-up found no wsi.
            if let wsi, lock.withLock({ closing || !outbox.isEmpty }) { lws_callback_on_writable(wsi) }
            events(.opened)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if let current = self.wsi { lws_callback_on_writable(current) }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let wsi else { return 0 }
            if let input { incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
            if lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 {
                let message = incoming
                incoming.removeAll(keepingCapacity: true)
                events(.text(message))
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let wsi else { return 0 }
            let (next, more, close) = lock.withLock { () -> ([UInt8]?, Bool, Bool) in
                if closing { return (nil, false, true) }
                let next = outbox.isEmpty ? nil : outbox.removeFirst()
                return (next, !outbox.isEmpty, false)
            }
            if close {
                closeCode = 1000
                _ = tandem_write_close(wsi, 1000, "bye", 3)
                return -1
            }
            if let next {
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pre + next.count)
                defer { buffer.deallocate() }
                next.withUnsafeBufferPointer { (buffer + pre).update(from: $0.baseAddress!, count: next.count) }
                if tandem_write_text(wsi, buffer, next.count) < 0 { return -1 }
            }
            if more { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, length >= 2 {
                let payload = UnsafeRawBufferPointer(start: input, count: length)
                closeCode = Int(payload[0]) << 8 | Int(payload[1])
                closeReason = String(decoding: payload.dropFirst(2), as: UTF8.self)
            }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            closeReason = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
            self.wsi = nil
            finished = true
        case LWS_CALLBACK_CLIENT_CLOSED:
            self.wsi = nil
            finished = true
        default:
            break
        }
        return 0
    }

    static func owning(_ context: OpaquePointer?) -> LwsConnection? {
        guard let context, let raw = lws_context_user(context) else { return nil }
        return Unmanaged<LwsConnection>.fromOpaque(raw).takeUnretainedValue()
    }
}

/// The one lws callback: recovers the connection from the context's user pointer.
private func lwsClientCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                               _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let connection = LwsConnection.owning(lws_get_context(wsi)) else { return 0 }
    return connection.handle(wsi, reason, input, length)
}
#endif
