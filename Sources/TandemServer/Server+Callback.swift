import CLibWebSockets
import CTandemShim

extension Server {
    /// One switch over lws' callback reasons; each case is a thin translator to a method.
    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        let session = user?.load(as: UInt64.self) ?? 0
        switch reason {
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            guard let refusal = upgradeRefusal(wsi) else { return 0 }
            // >0 tells lws the answer was written here.
            metrics.httpRequests[refusal.status, default: 0] += 1
            return lws_return_http_status(wsi, UInt32(refusal.status), refusal.message) != 0 ? -1 : 1
        case LWS_CALLBACK_ESTABLISHED:
            opened(wsi, session: newSession(user))
            return 0
        case LWS_CALLBACK_RECEIVE:
            guard let connection = connections[session] else { return -1 }
            return received(connection, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connections[session] else { return 0 }
            return writable(connection)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let connection = connections[session], let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                connection.peerCloseCode = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            }
            return 0
        case LWS_CALLBACK_CLOSED:
            if let connection = connections[session] { closed(connection) }
            return 0
        case LWS_CALLBACK_HTTP:
            return httpRequest(wsi, session: newSession(user), path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/")
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
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if tandem_signal_received() != 0 { beginShutdown() }
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }
}
