/// What a whole frame or message read from a client means.
enum FrameEvent: Equatable {
    /// A whole text message, its fragments joined: valid UTF-8.
    case text([UInt8])
    /// A whole binary message, its fragments joined.
    case binary([UInt8])
    /// A ping; its payload (at most 125 bytes) is for the pong.
    case ping([UInt8])
    /// A pong.
    case pong([UInt8])
    /// A close frame: `code` is nil for an empty payload; `reason` is valid UTF-8.
    /// The reader reads nothing after it.
    case close(code: UInt16?, reason: [UInt8])
}

/// Why the connection must be closed, with the close code to send: 1002
/// (protocol error), 1007 (text or close reason not UTF-8) or 1009 (message too big).
struct FrameFailure: Error, Equatable {
    let code: UInt16
    let reason: String
    /// Which rule was broken.
    var violation: FrameReader.Violation = .unmasked
}

/// An incremental reader of the frames a client sends to the server (RFC 6455,
/// section 5). Pure: the caller reads the socket and feeds the bytes, in any
/// pieces, and gets whole messages and control frames back in order.
///
/// One is stored per open connection, so it is small
/// (`MemoryLayout<FrameReader>.size` is 43 bytes on 64-bit platforms) and,
/// between frames (`isIdle`), holds no heap memory: only a partial header, a
/// partial control payload or a data message not yet whole is kept across
/// feeds. A whole frame arriving in one feed (the common case) is unmasked
/// straight from the caller's bytes into the event's array, eight bytes at a time.
///
/// It enforces section 5 for a connection with no extensions: frames masked,
/// RSV bits clear, no reserved opcodes, control frames unfragmented and at most
/// 125 bytes, continuations only inside a message and no new message inside
/// one, the 64-bit length's top bit clear (1002); a message longer than
/// `maxMessage`, refused from the header that says so (1009); text that is
/// not UTF-8, refused at the first bad byte that has arrived (1007, "fail
/// fast"); and close payloads (1002 for one byte or a code that may not be
/// received, 1007 for a reason that is not UTF-8). Non-minimal length
/// encodings are accepted.
struct FrameReader {
    /// The data message in progress, unmasked, its fragments so far joined.
    private var message: [UInt8] = []
    /// A header not yet whole, or then the payload so far of a control frame.
    private var pending: [UInt8] = []
    /// The payload bytes of the current frame still to come.
    private var remaining: UInt32 = 0
    /// The masking key of the current frame, rotated so that its low byte
    /// unmasks the next payload byte (byte i of the key is bits 8i..<8i+8).
    private var mask: UInt32 = 0
    /// The largest message accepted.
    private let limit: UInt32
    /// The current frame: FIN (0x80), header read (0x40) and opcode (low 4 bits); 0 between frames.
    private var frame: UInt8 = 0
    /// The opcode of the data message in progress (1 text, 2 binary), or 0.
    private var kind: UInt8 = 0
    /// Set once a close frame was read or a violation found.
    private var ending: Ending?
    /// The UTF-8 check of the text message in progress.
    private var utf8 = UTF8Validator()

    private static let headerRead: UInt8 = 0x40

    /// A reader that accepts messages (fragments joined) of up to `maxMessage`
    /// bytes; more is 1009. Limits above 4 GiB - 1 are taken as 4 GiB - 1.
    init(maxMessage: Int) {
        limit = UInt32(clamping: max(0, maxMessage))
    }

    /// Whether nothing is partially read: between frames, with no fragmented
    /// message in progress (or after a close or a failure). The reader then
    /// holds no heap memory, and the caller may drop its own buffers.
    var isIdle: Bool {
        ending != nil || (frame == 0 && kind == 0 && pending.isEmpty)
    }

    /// The heap capacity the reader holds, in bytes (0 when idle); for tests and gauges.
    var heldCapacity: Int { message.capacity + pending.capacity }

    /// Feeds `bytes` read from the socket, in whatever pieces they came;
    /// calls `event` for each whole message or control frame, in order.
    ///
    /// Returns a failure at the first violation, with no event after it; the
    /// reader is then dead, holds nothing, and returns the same failure on
    /// every further feed. After a close event the rest of the bytes, and of
    /// any further feed, are ignored (nil, no events): the caller closes.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ event: (FrameEvent) -> Void) -> FrameFailure? {
        switch ending {
        case .failed(let violation): return violation.failure
        case .closed: return nil
        case nil: break
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let end = bytes.count
        var at = 0
        while true {
            if frame & Self.headerRead == 0 {
                guard at < end else { break }
                if pending.isEmpty && end - at >= 2 {
                    // The header starts in these bytes: read it in place if it is all here.
                    let b0 = base.load(fromByteOffset: at, as: UInt8.self)
                    let b1 = base.load(fromByteOffset: at + 1, as: UInt8.self)
                    if let violation = check(b0, b1) { return fail(violation) }
                    let size = Self.headerSize(b1)
                    guard end - at >= size else {
                        pending.append(contentsOf: UnsafeRawBufferPointer(start: base + at, count: end - at))
                        break
                    }
                    if let violation = begin(Self.header(base + at)) { return fail(violation) }
                    at += size
                } else {
                    // Gather the header in `pending`: first the two bytes that say its size.
                    if pending.count < 2 {
                        let take = min(2 - pending.count, end - at)
                        pending.append(contentsOf: UnsafeRawBufferPointer(start: base + at, count: take))
                        at += take
                        guard pending.count == 2 else { break }
                        if let violation = check(pending[0], pending[1]) { return fail(violation) }
                    }
                    let size = Self.headerSize(pending[1])
                    let take = min(size - pending.count, end - at)
                    pending.append(contentsOf: UnsafeRawBufferPointer(start: base + at, count: take))
                    at += take
                    guard pending.count == size else { break }
                    let header = pending.withUnsafeBytes { Self.header($0.baseAddress!) }
                    pending.removeAll(keepingCapacity: true)
                    if let violation = begin(header) { return fail(violation) }
                }
            }
            // The payload, possibly empty, possibly not all here.
            let take = min(Int(remaining), end - at)
            let chunk = UnsafeRawBufferPointer(start: base + at, count: take)
            at += take
            if let violation = payload(chunk, event) { return fail(violation) }
            if ending != nil {
                message = []
                pending = []
                return nil
            }
            if frame != 0 { break }  // the frame goes on in the next feed
        }
        if pending.isEmpty && pending.capacity != 0 { pending = [] }
        return nil
    }

    // MARK: Headers

    /// A whole frame header's fields.
    private struct Header {
        var b0: UInt8
        var length: UInt64
        var key: UInt32
    }

    /// The size of a masked frame's header whose second byte is `b1`.
    private static func headerSize(_ b1: UInt8) -> Int {
        switch b1 & 0x7F {
        case 126: 8
        case 127: 14
        default: 6
        }
    }

    /// Reads the whole masked header at `p`.
    private static func header(_ p: UnsafeRawPointer) -> Header {
        let b1 = p.load(fromByteOffset: 1, as: UInt8.self)
        var length = UInt64(b1 & 0x7F)
        var offset = 2
        if length == 126 {
            length = UInt64(UInt16(bigEndian: p.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
            offset = 4
        } else if length == 127 {
            length = UInt64(bigEndian: p.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
            offset = 10
        }
        let key = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        return Header(b0: p.load(as: UInt8.self), length: length, key: key)
    }

    /// Checks a header's first two bytes, so that a bad header fails before the rest of it arrives.
    private func check(_ b0: UInt8, _ b1: UInt8) -> Violation? {
        if b0 & 0x70 != 0 { return .reservedBits }
        switch b0 & 0x0F {
        case 0:
            if kind == 0 { return .strayContinuation }
        case 1, 2:
            if kind != 0 { return .interruptedMessage }
        case 8, 9, 10:
            if b0 & 0x80 == 0 { return .fragmentedControl }
            if b1 & 0x7F > 125 { return .longControl }
        default:
            return .reservedOpcode
        }
        if b1 & 0x80 == 0 { return .unmasked }
        return nil
    }

    /// Starts the frame of a whole header whose first two bytes passed `check`.
    private mutating func begin(_ header: Header) -> Violation? {
        if header.length >> 63 != 0 { return .hugeLength }
        let opcode = header.b0 & 0x0F
        if opcode == 8 && header.length == 1 { return .shortClose }
        if opcode < 8 {
            if UInt64(message.count) + header.length > UInt64(limit) { return .tooBig }
            if opcode != 0 { kind = opcode }
        }
        remaining = UInt32(header.length)  // at most 125, or at most `limit`
        mask = header.key
        frame = (header.b0 & 0x8F) | Self.headerRead
        return nil
    }

    // MARK: Payloads

    /// Takes `chunk`, the next of the current frame's payload bytes (all of
    /// what remains of it, or all there is); at the frame's end, sends what it completes.
    private mutating func payload(_ chunk: UnsafeRawBufferPointer, _ event: (FrameEvent) -> Void) -> Violation? {
        let opcode = frame & 0x0F
        let fin = frame & 0x80 != 0
        let last = chunk.count == Int(remaining)
        if opcode >= 8 {
            let body: [UInt8]
            if last && pending.isEmpty {
                body = unmasked(chunk)
            } else {
                Self.append(chunk, to: &pending, key: &mask)
                remaining -= UInt32(chunk.count)
                guard last else { return nil }
                body = pending
                pending = []
            }
            frame = 0
            remaining = 0
            return control(opcode, body, event)
        }
        if last && fin && message.isEmpty {
            // A whole message in these bytes (or ending in them, after empty fragments).
            let body = unmasked(chunk)
            frame = 0
            remaining = 0
            if kind == 1 {
                guard UTF8Validator.isValid(body) else { return .badText }
                kind = 0
                event(.text(body))
            } else {
                kind = 0
                event(.binary(body))
            }
            return nil
        }
        let start = message.count
        Self.append(chunk, to: &message, key: &mask)
        remaining -= UInt32(chunk.count)
        if kind == 1 && !utf8.feed(message[start...]) { return .badText }
        guard last else { return nil }
        frame = 0
        guard fin else { return nil }
        if kind == 1 && !utf8.complete { return .badText }
        let body = message
        message = []
        utf8 = UTF8Validator()
        let text = kind == 1
        kind = 0
        event(text ? .text(body) : .binary(body))
        return nil
    }

    /// A whole control frame's payload: its event, or why it is refused.
    private mutating func control(_ opcode: UInt8, _ body: [UInt8], _ event: (FrameEvent) -> Void) -> Violation? {
        switch opcode {
        case 9:
            event(.ping(body))
        case 10:
            event(.pong(body))
        default:
            if body.isEmpty {
                ending = .closed
                event(.close(code: nil, reason: []))
                return nil
            }
            let code = UInt16(body[0]) << 8 | UInt16(body[1])
            guard Self.mayBeReceived(closeCode: code) else { return .badCloseCode }
            let reason = Array(body[2...])
            guard UTF8Validator.isValid(reason) else { return .badCloseReason }
            ending = .closed
            event(.close(code: code, reason: reason))
        }
        return nil
    }

    /// Whether a client's close frame may carry `code` (RFC 6455 7.4.1-7.4.2:
    /// the defined codes a client has reason to send, and 3000-4999; not
    /// 1004-1006 or 1015, which are reserved or never sent, nor 1012-1014,
    /// which a server sends: the set lws 4.1 checked, and docs/security.md
    /// states, so that a client sees what it saw before).
    static func mayBeReceived(closeCode code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    // MARK: Unmasking

    /// `chunk` unmasked into a new array (the one copy), advancing the key.
    private mutating func unmasked(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        guard let source = chunk.baseAddress, !chunk.isEmpty else { return [] }
        var key = mask
        let bytes = [UInt8](unsafeUninitializedCapacity: chunk.count) { buffer, initialized in
            key = Self.unmask(source, into: UnsafeMutableRawPointer(buffer.baseAddress!), count: chunk.count, key: key)
            initialized = chunk.count
        }
        mask = key
        return bytes
    }

    /// Appends `chunk` to `bytes` and unmasks it there, advancing `key`.
    private static func append(_ chunk: UnsafeRawBufferPointer, to bytes: inout [UInt8], key: inout UInt32) {
        guard !chunk.isEmpty else { return }
        let start = bytes.count
        bytes.append(contentsOf: chunk)
        var advanced = key
        bytes.withUnsafeMutableBytes { buffer in
            let at = buffer.baseAddress! + start
            advanced = unmask(UnsafeRawPointer(at), into: at, count: chunk.count, key: advanced)
        }
        key = advanced
    }

    /// XORs `count` bytes from `source` with the repeating `key` into
    /// `target` (which may be `source`), eight bytes at a time; returns the
    /// key rotated for the byte after them.
    @inline(__always)
    private static func unmask(_ source: UnsafeRawPointer, into target: UnsafeMutableRawPointer, count: Int, key: UInt32) -> UInt32 {
        let wide = UInt64(key) | UInt64(key) << 32
        var i = 0
        while i + 8 <= count {
            let word = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            target.storeBytes(of: (word ^ wide).littleEndian, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        var key = key
        while i < count {
            let byte = source.load(fromByteOffset: i, as: UInt8.self) ^ UInt8(truncatingIfNeeded: key)
            target.storeBytes(of: byte, toByteOffset: i, as: UInt8.self)
            key = key >> 8 | key << 24
            i += 1
        }
        return key
    }

    // MARK: Failures

    /// Records `violation`, drops what is held, and returns its failure.
    private mutating func fail(_ violation: Violation) -> FrameFailure {
        ending = .failed(violation)
        message = []
        pending = []
        frame = 0
        kind = 0
        remaining = 0
        return violation.failure
    }

    private enum Ending {
        case closed
        case failed(Violation)
    }

    /// The violations, one byte each (the reader keeps the one it found).
    enum Violation: UInt8 {
        case unmasked, reservedBits, reservedOpcode, fragmentedControl, longControl
        case strayContinuation, interruptedMessage, hugeLength, shortClose, badCloseCode
        case tooBig, badText, badCloseReason

        var failure: FrameFailure {
            switch self {
            case .unmasked: FrameFailure(code: 1002, reason: "a client frame must be masked", violation: .unmasked)
            case .reservedBits: FrameFailure(code: 1002, reason: "reserved bits set with no extension", violation: .reservedBits)
            case .reservedOpcode: FrameFailure(code: 1002, reason: "reserved opcode", violation: .reservedOpcode)
            case .fragmentedControl: FrameFailure(code: 1002, reason: "a control frame cannot be fragmented", violation: .fragmentedControl)
            case .longControl: FrameFailure(code: 1002, reason: "a control frame's payload is at most 125 bytes", violation: .longControl)
            case .strayContinuation: FrameFailure(code: 1002, reason: "a continuation frame with no message to continue", violation: .strayContinuation)
            case .interruptedMessage: FrameFailure(code: 1002, reason: "a new message inside a fragmented one", violation: .interruptedMessage)
            case .hugeLength: FrameFailure(code: 1002, reason: "a 64-bit length with its top bit set", violation: .hugeLength)
            case .shortClose: FrameFailure(code: 1002, reason: "a close payload cannot be one byte", violation: .shortClose)
            case .badCloseCode: FrameFailure(code: 1002, reason: "a close code that may not be received", violation: .badCloseCode)
            case .tooBig: FrameFailure(code: 1009, reason: "message too big", violation: .tooBig)
            case .badText: FrameFailure(code: 1007, reason: "text is not UTF-8", violation: .badText)
            case .badCloseReason: FrameFailure(code: 1007, reason: "close reason is not UTF-8", violation: .badCloseReason)
            }
        }
    }
}
