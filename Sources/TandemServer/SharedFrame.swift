import CTandemShim
import TandemCore
import TandemWire

/// A fan-out round's update as bytes, encoded once for every member in step:
/// the frame's head up to its `ack` value (`{"type":"update","rev":43,"ack":`)
/// and its tail (`,"changes":[…]…}`), with and without `present`. Each
/// recipient's frame is head, its own `ack`, tail: one `sendmsg` of those
/// pieces behind the WebSocket header, nothing copied or built per member.
struct SharedFrame {
    /// The commits and gesture entries the frame carries.
    let updates: Int
    private let update: Update
    private let present: Int
    private let head: [UInt8]
    private var tail: [UInt8]?
    private var tailWithPresent: [UInt8]?

    init(_ round: RoundUpdate) {
        update = round.update
        present = round.present
        updates = round.update.changes.count + round.update.gestures.count
        head = UpdateEncoder.head(revision: round.update.revision)
    }

    /// Sends the frame to `wsi` with `ack`, and `present` when given (it is
    /// the round's count, or nil). Returns the payload's length, and whether
    /// the socket took the whole frame at once (else lws holds some of it).
    /// With `batched`, the frame is queued in the round's io_uring batch
    /// (sent by `tandem_batch_flush`; `whole` is then reported there).
    mutating func send(to wsi: OpaquePointer?, fd: Int32, ack: Int, present: Int?, batched: Bool, encoder: inout UpdateEncoder) -> (bytes: Int, whole: Bool) {
        let tail = self.tail(withPresent: present != nil, encoder: &encoder)
        return Self.withDecimal(ack) { digits in
            head.withUnsafeBufferPointer { h in
                tail.withUnsafeBufferPointer { t in
                    let bytes = h.count + digits.count + t.count
                    if batched {
                        tandem_batch_text(wsi, fd, h.baseAddress, h.count, digits.baseAddress, digits.count, t.baseAddress, t.count)
                        return (bytes, true)
                    }
                    let sent = tandem_send_text(wsi, fd, h.baseAddress, h.count, digits.baseAddress, digits.count, t.baseAddress, t.count)
                    return (bytes, sent == 1)
                }
            }
        }
    }

    private mutating func tail(withPresent: Bool, encoder: inout UpdateEncoder) -> [UInt8] {
        if withPresent {
            if let tailWithPresent { return tailWithPresent }
            let bytes = encoder.tail(update, present: present)
            tailWithPresent = bytes
            return bytes
        }
        if let tail { return tail }
        let bytes = encoder.tail(update, present: nil)
        tail = bytes
        return bytes
    }

    /// Calls `body` with the decimal digits of `n` (a `seq`: never negative on the wire), on the stack.
    private static func withDecimal<R>(_ n: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var value = n.magnitude
            var start = 20
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: value % 10) + 0x30
                value /= 10
            } while value > 0
            return body(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }
}
