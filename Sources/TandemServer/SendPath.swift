#if canImport(Glibc)
import Glibc
#endif
import CTandemShim
import TandemCore

/// How frames leave the server, decided once at start: straight to the
/// socket (`tandem_send_text`) on plain TCP, in io_uring batches per
/// fan-out round where asked and the kernel allows it (tandem_batch.h), or
/// through lws and OpenSSL under TLS.
struct SendPath {
    /// Whether frames go straight to the socket: on plain TCP. Under TLS every byte goes through lws and OpenSSL.
    let direct: Bool
    /// Whether fan-out rounds send in io_uring batches (`--sends io_uring`).
    let batching: Bool
    /// Why io_uring could not be used, when it was asked for.
    let problem: String?

    init(tls: Bool, sends: ServerConfig.Sends) {
        direct = !tls
        if direct && sends == .ioUring {
            let rc = tandem_batch_open()
            batching = rc == 0
            problem = rc == 0 ? nil : String(cString: strerror(-rc))
        } else {
            batching = false
            problem = nil
        }
    }

    /// `io_uring` (round batches), `send`, or `tls`.
    var name: String { direct ? (batching ? "io_uring" : "send") : "tls" }
}

/// A reusable write buffer with LWS_PRE bytes of headroom, grown on demand.
struct ScratchBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 16)
    }

    /// Makes room for `needed` bytes (the old contents are not kept).
    mutating func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        base.deallocate()
        capacity = max(needed, capacity * 2)
        base = .allocate(byteCount: capacity, alignment: 16)
    }

    func free() { base.deallocate() }
}

/// The rooms with a flush scheduled and the one timer that wakes the loop
/// for the earliest (Server+FanOut.swift).
struct FlushSchedule {
    /// Wakes the loop for the earliest scheduled room flush.
    let timer: UnsafeMutablePointer<tandem_timer>
    /// When the timer fires, if it is scheduled.
    var due: Moment?
    /// Rooms with a flush scheduled (`RoomHost.flushDue`).
    var pending: [RoomHost] = []
}
