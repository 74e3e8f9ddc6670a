import CLibWebSockets
import CTandemShim
import TandemCore

/// One connection to the echo endpoint (`--echo-path`), from ESTABLISHED to
/// CLOSED: the message being reassembled and the messages waiting to go back.
final class EchoSession {
    /// Its lws connection; `nil` on the server's own socket (Transport/).
    let wsi: OpaquePointer?
    let session: UInt64
    /// Its socket (the server's own when `wsi` is nil).
    let fd: Int32
    /// On the server's own socket: the frames read so far, and the close state.
    var reader = FrameReader(maxMessage: EchoSession.maxMessage)
    var closeSent = false
    var hangUpAt: Moment?
    var limitSlot: ConnectionLimiter.SocketID?
    /// The message being reassembled from its fragments, and whether it is binary.
    var incoming: [UInt8] = []
    var binary = false
    /// Whether a message has begun (its first fragment came) and not yet ended.
    var started = false
    /// Checks a text message as it arrives, to refuse it at its first bad byte.
    var utf8 = UTF8Validator()
    /// Whole messages waiting for a writable callback, oldest first.
    var outgoing: [(bytes: [UInt8], binary: Bool)] = []
    /// A close decided here, sent from the next writable callback.
    var closing: (code: UInt16, reason: String)?
    /// Whether a receive callback returned -1 with the close reason set:
    /// lws sends that close itself, and nothing more may be written.
    var refused = false

    /// The largest message echoed. The Autobahn|Testsuite's biggest (case
    /// 9.1.6, 9.2.6) is 16 MiB; rooms keep their own, much smaller `--max-frame`.
    static let maxMessage = 16 * 1024 * 1024 + 1024

    init(wsi: OpaquePointer?, session: UInt64, fd: Int32) {
        self.wsi = wsi
        self.session = session
        self.fd = fd
    }
}

/// An echo endpoint for the Autobahn|Testsuite (`make autobahn`), off by
/// default: it sends every text and binary message back as it came, whole,
/// and never joins a room. It exercises the same lws connection and the same
/// frame checks (Server+Frames.swift) as the rooms do.
extension Server {
    /// Whether `wsi` asked for the echo endpoint.
    func isEchoRequest(_ wsi: OpaquePointer) -> Bool {
        guard let echoPath = config.echoPath else { return false }
        return requestPath(wsi) == echoPath
    }

    /// At ESTABLISHED, for the echo path; `false` for any other path.
    func openEcho(_ wsi: OpaquePointer, session: UInt64, own: Int32?) -> Bool {
        guard isEchoRequest(wsi) else { return false }
        let echo = EchoSession(wsi: own == nil ? wsi : nil, session: session, fd: own ?? lws_get_socket_fd(wsi))
        sockets.echoes[session] = echo
        let refusal = closeForLimits(wsi)
        if let own {
            echo.limitSlot = moveLimitSlot(from: wsi)
            ownSockets?[own] = .echo(echo)
            if let refusal { failEcho(echo, code: refusal.code, reason: refusal.reason) }
        } else if let refusal {
            echo.closing = refusal
            lws_callback_on_writable(wsi)
        }
        return true
    }

    func echoReceived(_ echo: EchoSession, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let wsi = echo.wsi else { return -1 }
        guard echo.closing == nil, !echo.refused else { return 0 }
        if !echo.started {
            echo.started = true
            echo.binary = lws_frame_is_binary(wsi) != 0
            echo.utf8 = UTF8Validator()
        }
        if echo.incoming.count + bytes.count > EchoSession.maxMessage {
            echo.incoming = []
            return closeEcho(echo, code: 1009, reason: "message over \(EchoSession.maxMessage) bytes")
        }
        if !echo.binary && !echo.utf8.feed(bytes) {
            return closeEcho(echo, code: 1007, reason: "text messages must be UTF-8")
        }
        echo.incoming.append(contentsOf: bytes)
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        if !echo.binary && !echo.utf8.complete {
            return closeEcho(echo, code: 1007, reason: "text messages must be UTF-8")
        }
        echo.outgoing.append((echo.incoming, echo.binary))
        echo.incoming = []
        echo.started = false
        lws_callback_on_writable(wsi)
        return 0
    }

    /// One message per writable callback, as lws asks.
    func echoWritable(_ echo: EchoSession) -> Int32 {
        guard let wsi = echo.wsi else { return -1 }
        if echo.refused { return -1 }
        if let closing = echo.closing {
            writeClose(wsi, code: closing.code, reason: closing.reason)
            return -1
        }
        guard !echo.outgoing.isEmpty else { return 0 }
        let message = echo.outgoing.removeFirst()
        write(wsi, message.bytes, binary: message.binary)
        if !echo.outgoing.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    }

    private func closeEcho(_ echo: EchoSession, code: UInt16, reason: String) -> Int32 {
        echo.refused = true
        if let wsi = echo.wsi { setCloseReason(wsi, code: code, reason: reason) }
        return -1
    }
}
