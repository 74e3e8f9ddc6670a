import CLibWebSockets
import CTandemShim
import TandemCore

/// What RFC 6455 asks of a server about the frames a client sends that lws
/// 4.1 leaves to its user: unmasked frames, and close frames whose payload is
/// one byte, whose code may not be sent, or whose reason is not UTF-8.
extension Server {
    /// At ESTABLISHED: starts checking the frames of `wsi` for their mask (CTandemShim, "unmasked client frames").
    func watchMasks(_ wsi: OpaquePointer) {
        // Under TLS the socket carries records, not frames (and OpenSSL reads
        // with read(2), never recv): lws alone judges those frames.
        guard config.tls == nil else { return }
        tandem_mask_watch(lws_get_socket_fd(wsi))
    }

    /// At CLOSED.
    func unwatchMasks(_ wsi: OpaquePointer) {
        tandem_mask_unwatch(lws_get_socket_fd(wsi))
        sockets.failing[Int(bitPattern: UnsafeRawPointer(wsi))] = nil
    }

    /// Every housekeeping tick: drops the TCP connection of clients lws failed
    /// for a bad frame header, once lws' close frame had a moment to go out
    /// (see `tandem_frame_header_error`): RFC 6455 7.1.1 wants the server to
    /// be the one that closes TCP, and lws would wait 5 s for a close reply it
    /// cannot read.
    func dropFailedConnections(at now: Moment) {
        for connection in connections.values { if let wsi = connection.wsi { dropIfFailed(wsi, at: now) } }
        for echo in sockets.echoes.values { if let wsi = echo.wsi { dropIfFailed(wsi, at: now) } }
    }

    private func dropIfFailed(_ wsi: OpaquePointer, at now: Moment) {
        guard tandem_frame_header_error(lws_get_socket_fd(wsi)) != 0 else { return }
        let key = Int(bitPattern: UnsafeRawPointer(wsi))
        guard let seen = sockets.failing[key] else {
            sockets.failing[key] = now
            return
        }
        if now.seconds(since: seen) >= 0.2 {
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, LWS_TO_KILL_ASYNC)
        }
    }

    /// In every receive callback: whether the client sent an unmasked frame,
    /// in which case the close reason (1002) is set and the callback returns -1.
    func unmaskedFrame(_ wsi: OpaquePointer, session: UInt64) -> Bool {
        guard tandem_mask_violated(lws_get_socket_fd(wsi)) != 0 else { return false }
        protocolError(wsi, session: session, kind: "unmasked", code: 1002, reason: "client frames must be masked")
        return true
    }

    /// LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: the client's close frame, before
    /// lws echoes it. lws answers a code that may not be sent with 1002 on
    /// its own, but echoes a one-byte payload, a code of 5000 or more and a
    /// reason that is not UTF-8 as they came; those get 1002 and 1007 here.
    /// Returns -1 to close with the reason set instead of the echo.
    func peerClosing(_ wsi: OpaquePointer, session: UInt64, _ payload: UnsafeRawBufferPointer) -> Int32 {
        if unmaskedFrame(wsi, session: session) { return -1 }
        // The answer to our close, on a lingering connection: hang up, no echo.
        if connections[session]?.closeSent == true { return -1 }
        if payload.count == 1 {
            protocolError(wsi, session: session, kind: "close_payload", code: 1002, reason: "a close payload cannot be one byte")
            return -1
        }
        guard payload.count >= 2 else { return 0 }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        if !Self.mayBeSent(closeCode: code) {
            protocolError(wsi, session: session, kind: "close_code", code: 1002, reason: "close code \(code) may not be sent")
            return -1
        }
        if !UTF8Validator.isValid(payload[2...]) {
            protocolError(wsi, session: session, kind: "close_reason_utf8", code: 1007, reason: "close reason is not UTF-8")
            return -1
        }
        connections[session]?.peerCloseCode = code
        return 0
    }

    /// Whether a client may send `code` in a close frame: the one rule, which
    /// the server's own frame reader applies too (`FrameReader.mayBeReceived`;
    /// the same set lws 4.1 checks, which rewrites the others below 5000 to 1002 itself).
    static func mayBeSent(closeCode code: UInt16) -> Bool {
        FrameReader.mayBeReceived(closeCode: code)
    }

    /// Sets the close reason of a protocol violation, counted and logged; the caller returns -1.
    private func protocolError(_ wsi: OpaquePointer, session: UInt64, kind: String, code: UInt16, reason: String) {
        metrics.transport.protocolErrors[kind, default: 0] += 1
        throttled("protocol-\(kind)", .info, "closing with \(code): \(reason)")
        if let connection = connections[session] {
            if connection.closing == nil { connection.closing = (code, reason) }
            connection.refused = true
        } else {
            sockets.echoes[session]?.refused = true
        }
        setCloseReason(wsi, code: code, reason: reason)
    }
}
