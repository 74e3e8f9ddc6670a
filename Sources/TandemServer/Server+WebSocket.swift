#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim
import TandemCore
import TandemStorage
import TandemWire

extension Server {
    /// Why the handshake on `wsi` is refused, or `nil` to upgrade: only
    /// `/rooms/{room}` upgrades (403 elsewhere), from a Host and Origin the
    /// policy admits (Server+Handshake.swift writes the answer).
    func upgradeRefusal(_ wsi: OpaquePointer) -> UpgradeRefusal? {
        if let refusal = upgradePolicyRefusal(wsi) { return refusal }
        guard requestPath(wsi).hasPrefix("/rooms/") || isEchoRequest(wsi) else {
            return UpgradeRefusal(status: 403, code: "forbidden", message: "WebSocket endpoints are /rooms/{room}", reason: "path")
        }
        return nil
    }

    /// ESTABLISHED: the connection joins its room, or is closed with why not.
    /// `own`: the server's own descriptor when the socket was taken off lws
    /// (Transport/); lws' `wsi` then serves only to read the request's headers.
    func opened(_ wsi: OpaquePointer, session: UInt64, own: Int32? = nil) {
        let now = MonotonicClock.now()
        let connection = Connection(session: session, wsi: own == nil ? wsi : nil, fd: own ?? lws_get_socket_fd(wsi), client: newClientID())
        limitUnsentBytes(connection.fd)
        connections[session] = connection
        memoryTrim.note()
        if let own {
            connection.reader = FrameReader(maxMessage: config.maxFrame)
            ownSockets?[own] = .room(connection)
        }
        defer { if own != nil { connection.limitSlot = moveLimitSlot(from: wsi) } }
        metrics.connectionsOpen += 1
        metrics.connectionsTotal += 1
        let roomID = String(requestPath(wsi).dropFirst("/rooms/".count))
        if let refusal = closeForLimits(wsi) {
            connectionLine("reject-limits", "reject \(connection.client): \(refusal.reason) (connection limits)")
            close(connection, code: refusal.code, reason: refusal.reason)
            return
        }
        if stopping != nil {
            close(connection, code: 1001, reason: "server shutting down")
            return
        }
        // The token before the room: a stranger learns nothing of which rooms exist.
        let role: Role
        switch admitSocket(wsi, client: connection.client, room: roomID, at: now) {
        case let .refused(code, reason):
            close(connection, code: code, reason: reason)
            return
        case let .admitted(granted, claims):
            role = granted
            connection.claims = claims
        }
        guard let host = rooms[roomID] else {
            connectionLine("reject-unknown-room", "reject \(connection.client): unknown room '\(roomID)'")
            close(connection, code: 4404, reason: "unknown room")
            return
        }
        // The token's name wins over ?name=: the operator said who this is.
        let name = connection.claims?.name ?? queryArgument(wsi, "name") ?? ""
        service.join(connection, to: host, name: name, role: role, since: queryArgument(wsi, "since"), at: now)
    }

    func received(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let wsi = connection.wsi else { return -1 }
        if lws_frame_is_binary(wsi) != 0 {
            return refuseAndClose(connection, code: 1003, reason: "text frames only")
        }
        if connection.incoming.count + bytes.count > config.maxFrame {
            connection.incoming = []
            return refuseAndClose(connection, code: 1009, reason: "message over \(config.maxFrame) bytes")
        }
        connection.incoming.append(contentsOf: bytes)
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        let message = connection.incoming
        connection.incoming.removeAll(keepingCapacity: true)
        guard let host = connection.host, connection.closing == nil else { return 0 }
        // Checked here rather than by lws, so the close is logged and counted with its code.
        guard String(validating: message, as: UTF8.self) != nil else {
            return refuseAndClose(connection, code: 1007, reason: "text frames must be UTF-8")
        }
        service.receive(message, from: connection, in: host, at: MonotonicClock.now())
        return 0
    }

    /// Closes from inside RECEIVE, where lws lets the callback return -1 with a reason set.
    private func refuseAndClose(_ connection: Connection, code: UInt16, reason: String) -> Int32 {
        connection.closing = (code, reason)
        connection.refused = true
        if let wsi = connection.wsi { setCloseReason(wsi, code: code, reason: reason) }
        return -1
    }

    /// Writes a close frame with `code` and `reason` (cut to the 123 bytes a close frame holds) at once.
    func writeClose(_ wsi: OpaquePointer, code: UInt16, reason: String) {
        let bytes = Array(reason.utf8.prefix(123))
        _ = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { tandem_write_close(wsi, code, $0.baseAddress, $0.count) }
        }
    }

    func writable(_ connection: Connection) -> Int32 {
        connection.armedSince = nil
        if connection.refused { return -1 }
        if let closing = connection.closing {
            if connection.closeSent { return 0 }
            guard let wsi = connection.wsi else {
                ownSendClose(fd: connection.fd, code: closing.code, reason: closing.reason)
                return ownLingerOrHangUp(.room(connection)) ? -1 : 0
            }
            writeClose(wsi, code: closing.code, reason: closing.reason)
            return lingerOrHangUp(connection)
        }
        guard let host = connection.host else { return 0 }
        if host.room.withholdingFrames {
            // Nothing goes out before storage has written the turn's commits,
            // not even a welcome (it shows the room's state, those commits
            // included): armed again right after the transaction (writeCommits).
            host.waitingRelease.append(connection)
            return 0
        }
        if let welcome = connection.welcome {
            connection.welcome = nil
            send(welcome, to: connection)
        } else if let presets = connection.presets {
            connection.presets = nil
            send(presets, to: connection)
        } else {
            sendNextFrame(connection, in: host)
        }
        // More for this member alone (another reject, or what changed since its welcome).
        if host.room.hasPendingFrame(for: connection.client) || connection.presets != nil {
            arm(connection, at: MonotonicClock.now())
        }
        return 0
    }

    /// Writes `connection`'s next frame from the room, if it has one: its
    /// oldest reject, or everything new for it.
    /// `batched`: queued in the round's io_uring batch (Server+FanOut.swift).
    func sendNextFrame(_ connection: Connection, in host: RoomHost, batched: Bool = false) {
        guard let frame = host.nextFrame(for: connection.client) else { return }
        switch frame {
        case let .reject(reject):
            send(OutboundEncoder.reject(reject), to: connection, batched: batched)
            if connection.closing == nil, host.room.droppedRejects(for: connection.client) > 0,
               host.room.waitingRejects(for: connection.client) == 0 {
                // Its ack stopped below the first reject it could not be sent: once the rejects it
                // was kept are out, it must learn of the others some other way (as after any close,
                // they may or may not have happened). A flood still going on is closed 1008 first.
                throttled("rejects-dropped", .warn, "\(connection.client): more than \(host.room.limits.pendingRejects) rejects unread, closing with 4008")
                close(connection, code: 4008, reason: "slow consumer: too many rejects unread")
            }
        case let .update(update):
            send(encoded(update, in: host), to: connection, batched: batched)
            let delivered = update.changes.count + update.gestures.count
            metrics.updatesConflated += max(0, host.offered - connection.offeredMark - delivered)
            connection.offeredMark = host.offered
            observeDelivery(of: update, in: host, recipients: 1)
        }
    }

    /// The bytes of `update`, shared with the previous recipient when it got the same update.
    private func encoded(_ update: Update, in host: RoomHost) -> [UInt8] {
        if let last = host.lastUpdate, last.sameContent(as: update) { return host.lastBytes }
        let bytes = host.encoder.encode(update)
        host.lastUpdate = update
        host.lastBytes = bytes
        return bytes
    }

    /// Writes `bytes` as one text frame: on plain TCP straight to the socket
    /// in one send (what it does not take goes to lws, ahead of anything lws
    /// writes next), under TLS through lws.
    private func send(_ bytes: [UInt8], to connection: Connection, batched: Bool = false) {
        if batched {
            bytes.withUnsafeBufferPointer { tandem_batch_text(connection.wsi, connection.fd, $0.baseAddress, $0.count, nil, 0, nil, 0) }
        } else if sends.direct {
            let sent = bytes.withUnsafeBufferPointer { tandem_send_text(connection.wsi, connection.fd, $0.baseAddress, $0.count, nil, 0, nil, 0) }
            if sent != 1 { connection.lwsMayHold = true }
        } else if let wsi = connection.wsi {
            write(wsi, bytes)
        }
        metrics.framesOut += 1
        metrics.bytesOut += bytes.count
    }

    func closed(_ connection: Connection) {
        connections[connection.session] = nil
        memoryTrim.note()
        metrics.connectionsOpen -= 1
        let code = Int(connection.closing?.code ?? connection.peerCloseCode ?? 1006)
        metrics.closes[code, default: 0] += 1
        connectionLine("close", "close \(connection.client) code=\(code)\(connection.closing.map { " reason=\($0.reason)" } ?? "")")
        guard let host = connection.host else { return }
        service.leave(connection, from: host, at: MonotonicClock.now())
    }

    /// Caps what the kernel may queue unsent for this socket.
    ///
    /// Linux grows a socket's send buffer up to tcp_wmem's maximum (4 MiB), and
    /// reports it writable all the while, so without a cap a client that stops
    /// reading gets megabytes of intermediate frames queued in the kernel before
    /// conflation starts. With TCP_NOTSENT_LOWAT the socket is writable only
    /// while less than 16 KiB is waiting unsent; past that lws stops calling
    /// WRITEABLE, the client's pending set conflates, and the slow timeout runs.
    private func limitUnsentBytes(_ fd: Int32) {
        guard fd >= 0 else { return }
        var lowat: Int32 = 16 * 1024
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &lowat, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Closes `connection` with `code` from its next writable callback.
    func close(_ connection: Connection, code: UInt16, reason: String) {
        guard connection.closing == nil else { return }
        connection.closing = (code, reason)
        // A client that never reads (a flood that ignores its rejects) never
        // makes its socket writable, and the close frame would wait for ever
        // while the client goes on sending: give it 5 s to start reading
        // again, then drop the socket.
        guard let wsi = connection.wsi else {
            connection.armedSince = nil
            arm(connection, at: MonotonicClock.now())
            hangUp(connection, within: 5)
            return
        }
        lws_callback_on_writable(wsi)
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, 5)
    }

    /// Drops the socket `seconds` from now unless it closes before.
    func hangUp(_ connection: Connection, within seconds: Int32) {
        guard let wsi = connection.wsi else {
            let due = MonotonicClock.now().adding(seconds: Double(seconds))
            connection.hangUpAt = min(connection.hangUpAt ?? due, due)
            return
        }
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, seconds)
    }

    /// After the close frame: hangs up at once when the client has nothing in
    /// flight, the usual case. A client still sending (a flood, a drag) would
    /// get a reset instead, since the kernel answers a close with unread data
    /// that way (RFC 2525), and the reset destroys the close frame before the
    /// client reads it: such a connection lingers, its frames dropped, until
    /// the client's close (`peerClosing`) or `lingerSeconds`.
    func lingerOrHangUp(_ connection: Connection) -> Int32 {
        guard let wsi = connection.wsi else { return ownLingerOrHangUp(.room(connection)) ? -1 : 0 }
        guard tandem_unread_bytes(lws_get_socket_fd(wsi)) > 0 || lws_partial_buffered(wsi) != 0 else { return -1 }
        connection.closeSent = true
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, Self.lingerSeconds)
        return 0
    }

    /// How long a closed connection that is still sending lingers.
    static let lingerSeconds: Int32 = 2

    /// Asks lws for a writable callback unless one is already due.
    func arm(_ connection: Connection, at now: Moment) {
        guard connection.armedSince == nil else { return }
        connection.armedSince = now
        if let wsi = connection.wsi {
            lws_callback_on_writable(wsi)
        } else if let own = ownSockets, own.inTurn, tandem_link_holds(connection.fd) == 0 {
            own.ready.append(connection) // writable now: written at the turn's end (writeReady)
        } else {
            tandem_link_want_writable(connection.fd, 1)
        }
    }

    func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: String) {
        var bytes = Array(reason.utf8.prefix(120))
        bytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), buffer.baseAddress, buffer.count)
        }
    }

    func requestPath(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        let n = tandem_request_path(wsi, &buffer, Int32(buffer.count))
        guard n > 0 else { return "" }
        return string(buffer)
    }

    func queryArgument(_ wsi: OpaquePointer, _ name: String, capacity: Int = 512) -> String? {
        var buffer = [CChar](repeating: 0, count: capacity)
        let n = tandem_query_arg(wsi, name, &buffer, Int32(buffer.count))
        guard n >= 0 else { return nil }
        return string(buffer)
    }
}

/// The text of a NUL-terminated C buffer, invalid UTF-8 repaired.
func string(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension Update {
    /// Whether `other` carries the same frame: equal stamps mean equal content.
    func sameContent(as other: Update) -> Bool {
        revision == other.revision && ack == other.ack
            && changes.count == other.changes.count && gestures.count == other.gestures.count
            && zip(changes, other.changes).allSatisfy { $0.stamp == $1.stamp }
            && zip(gestures, other.gestures).allSatisfy { $0.stamp == $1.stamp }
            && joined == other.joined && left == other.left && present == other.present
    }
}

extension Operation {
    /// The message type on the wire, for metrics.
    var kindName: String {
        switch self {
        case .drag: "drag"
        case .set: "set"
        case .step: "step"
        case .undo: "undo"
        case .redo: "redo"
        case .batch: "batch"
        case .reset: "reset"
        case .claim: "claim"
        case .release: "release"
        case .focus: "focus"
        }
    }
}
