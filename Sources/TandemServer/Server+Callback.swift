import CLibWebSockets
import CTandemShim

extension Server {
    /// One switch over lws' callback reasons; each case is a thin translator to a method.
    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        let session = user?.load(as: UInt64.self) ?? 0
        // A callback between lws' "out of header space" line and the close it
        // announces means the close did not follow: nothing to answer
        // (headers.c). The close itself begins with these two.
        if reason != LWS_CALLBACK_HTTP_DROP_PROTOCOL && reason != LWS_CALLBACK_CLOSED_HTTP { tandem_header_overflow_clear() }
        switch reason {
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi) // Server+Handshake.swift
        case LWS_CALLBACK_ESTABLISHED:
            let session = newSession(user)
            // Plain TCP: the socket becomes the server's own (Transport/), and lws lets its connection go.
            if let own = takeSocket(wsi) {
                user?.storeBytes(of: 0, as: UInt64.self) // lws' CLOSED for it is not this connection's
                if !openEcho(wsi, session: session, own: own) { opened(wsi, session: session, own: own) }
                return -1
            }
            watchMasks(wsi)
            if openEcho(wsi, session: session, own: nil) { return 0 }
            opened(wsi, session: session)
            return 0
        case LWS_CALLBACK_RECEIVE:
            if unmaskedFrame(wsi, session: session) { return -1 }
            // Room connections first: echo sessions (off by default) are the rare case.
            if let connection = connections[session] { return received(connection, UnsafeRawBufferPointer(start: input, count: length)) }
            guard let echo = sockets.echoes[session] else { return -1 }
            return echoReceived(echo, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_SERVER_WRITEABLE:
            if let connection = connections[session] { return writable(connection) }
            guard let echo = sockets.echoes[session] else { return 0 }
            return echoWritable(echo)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            return peerClosing(wsi, session: session, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_CLOSED:
            unwatchMasks(wsi)
            if sockets.echoes.removeValue(forKey: session) != nil { return 0 }
            if let connection = connections[session] { closed(connection) }
            return 0
        case LWS_CALLBACK_HTTP:
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            if let answered = refuseOverLimit(wsi, path: path) { return answered }
            return httpRequest(wsi, session: newSession(user), path: path)
        case LWS_CALLBACK_HTTP_BODY:
            return httpBody(wsi, session, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return httpBodyComplete(wsi, session)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return httpWritable(wsi, session)
        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            exchanges[session] = nil
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case LWS_CALLBACK_CLOSED_HTTP:
            exchanges[session] = nil
            return 0
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            return filterConnection(user)
        case LWS_CALLBACK_WSI_CREATE:
            connectionCreated(wsi)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            connectionDestroyed(wsi)
            return 0
        case LWS_CALLBACK_RAW_RX_FILE:
            // The two raw descriptors adopted: the server's own sockets' epoll set, and the OSC socket (Server+OSC.swift).
            if wsi == ownSockets?.watcher { serviceOwnSockets() } else { oscReadable() }
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if tandem_signal_received() != 0 { beginShutdown() }
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }
}
