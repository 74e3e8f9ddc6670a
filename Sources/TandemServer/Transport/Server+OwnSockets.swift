#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim
import TandemCore

/// The server's side of its own sockets (OwnSockets.swift): taking a socket
/// off lws, reading its frames, writing what it is owed, closing it.
extension Server {
    /// Makes the epoll set and has the event loop watch it. Plain TCP only
    /// (under TLS every byte goes through lws and OpenSSL).
    static func openOwnSockets(context: OpaquePointer, vhost: OpaquePointer, loop: UnsafeMutableRawPointer?,
                               protocolName: UnsafeMutablePointer<CChar>) throws(ServerError) -> OwnSockets {
        let epfd = tandem_link_open(loop)
        guard epfd >= 0 else { throw ServerError(description: "cannot make an epoll set: \(String(cString: strerror(-epfd)))") }
        let own = OwnSockets()
        // lws closes what it adopted; the shim keeps its own descriptor of the set.
        let copy = dup(epfd)
        guard copy >= 0, let watcher = lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, lws_sock_file_fd_type(filefd: copy),
                                                                   protocolName, nil) else {
            if copy >= 0 { Glibc.close(copy) }
            throw ServerError(description: "the event loop would not watch the server's epoll set")
        }
        own.watcher = watcher
        return own
    }

    /// At ESTABLISHED: takes the socket of `wsi` off lws when the server
    /// serves its own sockets. Returns the server's descriptor, or `nil`
    /// when the connection stays with lws.
    func takeSocket(_ wsi: OpaquePointer) -> Int32? {
        guard ownSockets != nil else { return nil }
        let fd = tandem_link_take(wsi)
        return fd >= 0 ? fd : nil
    }

    /// After `opened`: the connection's place among the connection limits
    /// moves from lws' wsi (freed now) to the connection, freed when it closes.
    func moveLimitSlot(from wsi: OpaquePointer) -> ConnectionLimiter.SocketID? {
        guard let (id, _) = sockets.byConnection.removeValue(forKey: Int(bitPattern: UnsafeRawPointer(wsi))) else { return nil }
        sockets.connectionOf[id] = nil
        return id
    }

    /// LWS_CALLBACK_RAW_RX_FILE on the epoll set: every socket event waiting.
    func serviceOwnSockets() {
        guard let own = ownSockets else { return }
        let n = own.events.withUnsafeMutableBufferPointer { tandem_link_wait($0.baseAddress, Int32($0.count)) }
        own.inTurn = true
        for i in 0..<Int(n) {
            let event = own.events[i]
            guard let link = own[event.fd] else { continue }
            if event.events & UInt32(TANDEM_LINK_OUT) != 0 { ownWritable(link, fd: event.fd) }
            // A link the write closed is gone: the read finds nothing.
            if event.events & UInt32(TANDEM_LINK_IN) != 0, let link = own[event.fd] { ownReadable(link, fd: event.fd) }
        }
        own.inTurn = false
        writeReady(own)
    }

    /// Writes the members armed during the turn whose socket held nothing
    /// unsent (an ack, a reject): as their EPOLLOUT would have, a loop turn
    /// sooner and without two epoll_ctl calls and a wake-up each. Whatever
    /// they arm meanwhile waits for EPOLLOUT as usual.
    private func writeReady(_ own: OwnSockets) {
        guard !own.ready.isEmpty else { return }
        let ready = own.ready
        own.ready.removeAll(keepingCapacity: true)
        for connection in ready where connections[connection.session] === connection && connection.armedSince != nil {
            if connection.closeSent { continue } // its close frame is out: the linger owns it
            if writable(connection) < 0 { hangUp(.room(connection)) }
        }
    }

    // MARK: reading

    private func ownReadable(_ link: OwnLink, fd: Int32) {
        guard let own = ownSockets else { return }
        let n = tandem_link_read(fd, own.readBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), own.readBuffer.count)
        if n == -1 { return }
        guard n > 0 else {
            hangUp(link) // the client is gone (its close frame, if any, was read before)
            return
        }
        let bytes = UnsafeRawBufferPointer(rebasing: own.readBuffer[0..<n])
        switch link {
        case let .room(connection): roomRead(connection, bytes)
        case let .echo(echo): echoRead(echo, bytes)
        }
    }

    private func roomRead(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        connection.lastHeard = MonotonicClock.now()
        connection.pinged = false
        var reader = connection.reader
        connection.reader = FrameReader(maxMessage: 0) // out of the connection while it reads (no overlapping access)
        let failure = reader.feed(bytes) { event in
            guard connections[connection.session] === connection else { return } // hung up meanwhile
            switch event {
            case let .text(message):
                guard !connection.closeSent, connection.closing == nil, let host = connection.host else { return }
                service.receive(message, from: connection, in: host, at: MonotonicClock.now())
            case .binary:
                guard !connection.closeSent, connection.closing == nil else { return }
                failRoom(connection, code: 1003, reason: "text frames only", kind: nil)
            case let .ping(payload):
                if !connection.closeSent { _ = payload.withUnsafeBufferPointer { tandem_link_send_frame(connection.fd, 10, $0.baseAddress, $0.count) } }
            case .pong:
                break
            case let .close(code, reason):
                peerClosed(.room(connection), code: code, reason: reason)
            }
        }
        guard connections[connection.session] === connection else { return }
        connection.reader = reader
        if let failure, !connection.closeSent {
            failRoom(connection, code: failure.code, reason: roomReason(failure), kind: Self.protocolErrorKind(failure))
        }
    }

    /// What a room's close says: as it said when lws read the frames.
    private func roomReason(_ failure: FrameFailure) -> String {
        switch failure.violation {
        case .tooBig: "message over \(config.maxFrame) bytes"
        case .badText: "text frames must be UTF-8"
        case .unmasked: "client frames must be masked"
        default: failure.reason
        }
    }

    /// The `tandem_websocket_protocol_errors_total` kind of a failure, for
    /// the violations lws left to the server (the others were lws' own, uncounted).
    private static func protocolErrorKind(_ failure: FrameFailure) -> String? {
        switch failure.violation {
        case .unmasked: "unmasked"
        case .shortClose: "close_payload"
        case .badCloseCode: "close_code"
        case .badCloseReason: "close_reason_utf8"
        default: nil
        }
    }

    /// A frame the connection may not send: the close frame goes out at once,
    /// then the connection lingers for the client's close (or hangs up).
    private func failRoom(_ connection: Connection, code: UInt16, reason: String, kind: String?) {
        if let kind {
            metrics.transport.protocolErrors[kind, default: 0] += 1
            throttled("protocol-\(kind)", .info, "closing with \(code): \(reason)")
        }
        if connection.closing == nil { connection.closing = (code, reason) }
        ownSendClose(fd: connection.fd, code: code, reason: reason)
        connection.armedSince = nil
        tandem_link_want_writable(connection.fd, 0)
        if ownLingerOrHangUp(.room(connection)) { hangUp(.room(connection)) }
    }

    /// The client's close frame: the answer to ours (hang up), or its own
    /// (echoed, code and reason, as lws did; then hang up: RFC 6455 7.1.1
    /// wants the server to close TCP first).
    private func peerClosed(_ link: OwnLink, code: UInt16?, reason: [UInt8]) {
        switch link {
        case let .room(connection):
            if !connection.closeSent {
                connection.peerCloseCode = code
                ownSendClose(fd: connection.fd, code: code, reason: reason)
            }
        case let .echo(echo):
            if !echo.closeSent { ownSendClose(fd: echo.fd, code: code, reason: reason) }
        }
        hangUp(link)
    }

    // MARK: writing

    private func ownWritable(_ link: OwnLink, fd: Int32) {
        let flushed = tandem_link_flush(fd)
        if flushed < 0 {
            hangUp(link)
            return
        }
        guard flushed == 1 else { return }
        guard case let .room(connection) = link else {
            if case let .echo(echo) = link, echo.closeSent { tandem_link_shutdown(fd) } // the close frame is out
            return
        }
        if connection.closeSent {
            tandem_link_shutdown(fd) // the close frame is out; lingering for the client's close, or its end of the stream
            return
        }
        guard connection.armedSince != nil else { return }
        tandem_link_want_writable(fd, 0)
        if writable(connection) < 0 { hangUp(link) }
    }

    /// A close frame: `code` (none for an empty payload) and `reason`, cut to the 123 bytes a close frame holds.
    func ownSendClose(fd: Int32, code: UInt16?, reason: String) {
        ownSendClose(fd: fd, code: code, reason: Array(reason.utf8.prefix(123)))
    }

    func ownSendClose(fd: Int32, code: UInt16?, reason: [UInt8]) {
        var payload: [UInt8] = []
        if let code { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + reason.prefix(123) }
        _ = payload.withUnsafeBufferPointer { tandem_link_send_frame(fd, 8, $0.baseAddress, $0.count) }
    }

    /// After our close frame: whether to hang up now. A client with bytes in
    /// flight, or a close frame not yet out, lingers for `lingerSeconds`:
    /// closing a socket with unread bytes would answer them with a reset,
    /// which can destroy the close frame before the client reads it. The
    /// server's side of the stream ends (a FIN) once the close frame is out,
    /// so that the client sees the server close TCP first (RFC 6455 7.1.1),
    /// and the server hangs up at the client's close frame or end of stream.
    func ownLingerOrHangUp(_ link: OwnLink) -> Bool {
        let fd: Int32
        switch link {
        case let .room(connection): fd = connection.fd
        case let .echo(echo): fd = echo.fd
        }
        let holds = tandem_link_holds(fd) != 0
        guard holds || tandem_unread_bytes(fd) > 0 else { return true }
        if !holds { tandem_link_shutdown(fd) }
        let until = MonotonicClock.now().adding(seconds: Double(Self.lingerSeconds))
        switch link {
        case let .room(connection):
            connection.closeSent = true
            connection.hangUpAt = until
        case let .echo(echo):
            echo.closeSent = true
            echo.hangUpAt = until
        }
        return false
    }

    // MARK: closing

    /// Closes the socket and forgets the connection, as lws' CLOSED and WSI_DESTROY did.
    func hangUp(_ link: OwnLink) {
        switch link {
        case let .room(connection):
            guard ownSockets?[connection.fd] != nil else { return }
            ownSockets?[connection.fd] = nil
            tandem_link_close(connection.fd)
            releaseLimitSlot(connection.limitSlot)
            closed(connection)
        case let .echo(echo):
            guard ownSockets?[echo.fd] != nil else { return }
            ownSockets?[echo.fd] = nil
            tandem_link_close(echo.fd)
            releaseLimitSlot(echo.limitSlot)
            sockets.echoes[echo.session] = nil
        }
    }

    private func releaseLimitSlot(_ id: ConnectionLimiter.SocketID?) {
        guard let id else { return }
        _ = sockets.limiter.release(id)
        metrics.transport.socketsOpen = sockets.limiter.open
    }

    /// Every housekeeping tick: hangs up the own sockets whose deadline
    /// passed, and those silent for `--idle-timeout` (pinged after a third of
    /// it: any frame, a pong too, counts as heard), as lws' idle policy did.
    func hangUpOverdue(at now: Moment) {
        let pingAfter = max(1, (config.idleTimeout / 3).rounded(.down))
        let dropAfter = max(2, config.idleTimeout)
        for connection in connections.values where connection.wsi == nil {
            if let due = connection.hangUpAt, now >= due {
                hangUp(.room(connection))
                continue
            }
            let silent = now.seconds(since: connection.lastHeard)
            if silent >= dropAfter {
                connectionLine("idle", "\(connection.client) silent for \(Int(silent)) s (--idle-timeout): dropped")
                hangUp(.room(connection))
            } else if silent >= pingAfter && !connection.pinged && connection.closing == nil {
                connection.pinged = true
                _ = tandem_link_send_frame(connection.fd, 9, nil, 0)
            }
        }
        for echo in sockets.echoes.values where echo.wsi == nil {
            if let due = echo.hangUpAt, now >= due { hangUp(.echo(echo)) }
        }
    }

    // MARK: the echo endpoint

    private func echoRead(_ echo: EchoSession, _ bytes: UnsafeRawBufferPointer) {
        var reader = echo.reader
        echo.reader = FrameReader(maxMessage: 0)
        let failure = reader.feed(bytes) { event in
            guard ownSockets?[echo.fd] != nil, !echo.closeSent else { return }
            switch event {
            case let .text(message):
                _ = message.withUnsafeBufferPointer { tandem_link_send_frame(echo.fd, 1, $0.baseAddress, $0.count) }
            case let .binary(message):
                _ = message.withUnsafeBufferPointer { tandem_link_send_frame(echo.fd, 2, $0.baseAddress, $0.count) }
            case let .ping(payload):
                _ = payload.withUnsafeBufferPointer { tandem_link_send_frame(echo.fd, 10, $0.baseAddress, $0.count) }
            case .pong:
                break
            case let .close(code, reason):
                peerClosed(.echo(echo), code: code, reason: reason)
            }
        }
        guard ownSockets?[echo.fd] != nil else { return }
        echo.reader = reader
        if let failure, !echo.closeSent { failEcho(echo, code: failure.code, reason: failure.reason) }
    }

    func failEcho(_ echo: EchoSession, code: UInt16, reason: String) {
        ownSendClose(fd: echo.fd, code: code, reason: reason)
        if ownLingerOrHangUp(.echo(echo)) { hangUp(.echo(echo)) }
    }
}
