import CTandemShim

/// A connection on one of the server's own sockets: a room's member or an echo session.
enum OwnLink {
    case room(Connection)
    case echo(EchoSession)
}

/// The server's own sockets (CTandemShim's tandem_link.h): WebSocket
/// connections taken off lws once their handshake is answered, on plain TCP.
/// lws accepts each connection, reads its request and writes the 101; from
/// ESTABLISHED on, the socket is in one epoll set of the server's, which the
/// event loop watches as one descriptor (an lws raw-file adoption, like the
/// OSC socket). Frames are read by each connection's `FrameReader` and
/// written by the server's own sends, as rounds already did. What lws kept
/// of each connection (about 1.5 KiB: its wsi, receive buffer, WebSocket
/// state and the event library's handle) is freed at once.
///
/// docs/architecture.md, "The server's own sockets".
final class OwnSockets {
    /// The connection on each descriptor, indexed by descriptor.
    private var links: [OwnLink?] = []
    /// The lws connection watching the epoll set (its RAW_RX_FILE callbacks).
    var watcher: OpaquePointer?
    /// Where a socket's bytes are read to, shared by all (a connection keeps
    /// only the part of a frame that has not arrived whole).
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Where the epoll set's events are read to.
    var events: [tandem_link_event]
    /// How many links are open.
    private(set) var count = 0
    /// Whether the server is in a turn of the epoll set's events: members
    /// armed meanwhile whose socket holds nothing unsent are written at the
    /// turn's end (`ready`), without asking the kernel for EPOLLOUT.
    var inTurn = false
    /// Members armed during this turn, written at its end (`Server.writeReady`).
    var ready: [Connection] = []

    static let readCapacity = 64 * 1024
    static let eventBatch = 256

    init() {
        readBuffer = .allocate(byteCount: Self.readCapacity, alignment: 16)
        events = Array(repeating: tandem_link_event(), count: Self.eventBatch)
    }

    deinit { readBuffer.deallocate() }

    subscript(fd: Int32) -> OwnLink? {
        get { fd >= 0 && Int(fd) < links.count ? links[Int(fd)] : nil }
        set {
            guard fd >= 0 else { return }
            let index = Int(fd)
            if index >= links.count {
                guard newValue != nil else { return }
                links.append(contentsOf: repeatElement(nil, count: max(index + 1, 2 * links.count) - links.count))
            }
            switch (links[index], newValue) {
            case (nil, .some): count += 1
            case (.some, nil): count -= 1
            default: break
            }
            links[index] = newValue
        }
    }
}
