import CLibWebSockets

/// The address a connection comes from, as the server judges it: for the
/// admin API's loopback rule and the per-address connection limit.
struct PeerAddress: Hashable, Sendable {
    /// The numeric address, e.g. `127.0.0.1` or `::1` (IPv4-mapped IPv6 shown as IPv4).
    let text: String

    init(text: String) {
        self.text = text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }

    /// The peer of `wsi` (lws' numeric form), or `nil` when lws cannot tell.
    init?(of wsi: OpaquePointer) {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return nil }
        let text = string(buffer)
        guard !text.isEmpty else { return nil }
        self.init(text: text)
    }

    /// Whether it is a loopback address (127.0.0.0/8 or ::1).
    var isLoopback: Bool {
        text == "::1" || text.hasPrefix("127.")
    }
}
