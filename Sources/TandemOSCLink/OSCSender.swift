import CLiblo
import TandemOSC

/// Sends messages to one target through liblo (`lo_address_new`, `lo_send_message`).
///
/// Used on one thread (the server's loop). A host name is looked up by liblo
/// on the first send and kept; an address literal is never looked up.
public final class OSCSender {
    public let target: OSCTarget
    private let address: lo_address
    /// liblo's words for the last failed send; `nil` after a send that worked.
    public private(set) var lastError: String?

    /// A sender to `target`; `nil` when liblo cannot make the address.
    public init?(_ target: OSCTarget) {
        guard let address = lo_address_new(target.host, String(target.port)) else { return nil }
        self.target = target
        self.address = address
    }

    /// Sends one message now; false when liblo reports an error (then see `lastError`).
    /// UDP: the datagram is handed to the kernel, and nothing waits for the peer.
    @discardableResult public func send(_ message: OSCMessage) -> Bool {
        guard let m = lo_message_new() else {
            lastError = "out of memory"
            return false
        }
        defer { lo_message_free(m) }
        for argument in message.arguments {
            switch argument {
            case let .float(f): lo_message_add_float(m, f)
            case let .int(i): lo_message_add_int32(m, i)
            case let .string(s): lo_message_add_string(m, s)
            case let .double(d): lo_message_add_double(m, d)
            }
        }
        if lo_send_message(address, message.address, m) < 0 {
            lastError = lo_address_errstr(address).map { String(cString: $0) } ?? "error \(lo_address_errno(address))"
            return false
        }
        lastError = nil
        return true
    }

    deinit {
        lo_address_free(address)
    }
}
