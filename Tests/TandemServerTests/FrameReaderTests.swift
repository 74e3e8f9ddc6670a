import Testing
@testable import TandemServer

/// How a test frame's length is written.
private enum LengthForm { case minimal, sixteen, sixtyFour }

/// The header of a client frame: FIN, RSV bits, opcode, `declared` length in
/// `form`, then the masking key (unless `masked` is false).
private func header(_ opcode: UInt8, declared: UInt64, fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
                    form: LengthForm = .minimal, key: [UInt8] = [0xA1, 0x5C, 0x03, 0xF7]) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 7) << 4 | opcode & 0x0F]
    let maskBit: UInt8 = masked ? 0x80 : 0
    let form = form == .minimal ? (declared <= 125 ? .minimal : declared <= 0xFFFF ? .sixteen : .sixtyFour) : form
    switch form {
    case .minimal:
        bytes.append(maskBit | UInt8(declared))
    case .sixteen:
        bytes.append(maskBit | 126)
        bytes += [UInt8(truncatingIfNeeded: declared >> 8), UInt8(truncatingIfNeeded: declared)]
    case .sixtyFour:
        bytes.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: declared >> UInt64(shift))) }
    }
    if masked { bytes += key }
    return bytes
}

/// A whole client frame carrying `payload`, masked with `key` (unless `masked` is false).
private func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
                   form: LengthForm = .minimal, key: [UInt8] = [0xA1, 0x5C, 0x03, 0xF7]) -> [UInt8] {
    let body = masked ? payload.enumerated().map { $0.element ^ key[$0.offset % 4] } : payload
    return header(opcode, declared: UInt64(payload.count), fin: fin, rsv: rsv, masked: masked, form: form, key: key) + body
}

private func text(_ string: String, fin: Bool = true) -> [UInt8] { frame(1, Array(string.utf8), fin: fin) }
private func closeFrame(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] { frame(8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason) }

/// What a reader made of a series of feeds.
private struct Run {
    var events: [FrameEvent] = []
    var failure: FrameFailure?
    /// The index of the feed that returned the failure.
    var failedAt: Int?
    var reader: FrameReader
}

/// Feeds `pieces` one by one to a new reader, checking on the way that no
/// event follows a failure, that a dead reader repeats its failure, and that
/// an idle reader holds no memory.
private func readFrames(_ pieces: [[UInt8]], maxMessage: Int = 1 << 17,
                  sourceLocation: SourceLocation = #_sourceLocation) -> Run {
    var run = Run(reader: FrameReader(maxMessage: maxMessage))
    for (index, piece) in pieces.enumerated() {
        var late = false
        var events: [FrameEvent] = []
        let failure = piece.withUnsafeBytes { bytes in
            run.reader.feed(bytes) { event in events.append(event) }
        }
        if run.failure != nil && !events.isEmpty { late = true }
        run.events += events
        #expect(!late, "an event after the failure", sourceLocation: sourceLocation)
        if let first = run.failure {
            #expect(failure == first, "a dead reader must repeat its failure", sourceLocation: sourceLocation)
        } else if let failure {
            run.failure = failure
            run.failedAt = index
        }
        if run.reader.isIdle {
            #expect(run.reader.heldCapacity == 0, "idle but holding \(run.reader.heldCapacity) bytes", sourceLocation: sourceLocation)
        }
    }
    return run
}

/// `bytes` one byte per piece.
private func bytewise(_ bytes: [UInt8]) -> [[UInt8]] { bytes.map { [$0] } }

@Suite("Frame reader")
struct FrameReaderTests {
    @Test("reads a single whole frame of each kind, unmasked, and is idle with nothing held after it")
    func wholeFrames() {
        let binary = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let cases: [([UInt8], FrameEvent)] = [
            (text("hello, κόσμε"), .text(Array("hello, κόσμε".utf8))),
            (text(""), .text([])),
            (frame(2, binary), .binary(binary)),
            (frame(2, []), .binary([])),
            (frame(9, Array("ping!".utf8)), .ping(Array("ping!".utf8))),
            (frame(9, []), .ping([])),
            (frame(10, Array(repeating: 0x55, count: 125)), .pong(Array(repeating: 0x55, count: 125))),
            (frame(8, []), .close(code: nil, reason: [])),
            (closeFrame(1000), .close(code: 1000, reason: [])),
            (closeFrame(4001, Array("bye ✓".utf8)), .close(code: 4001, reason: Array("bye ✓".utf8))),
        ]
        for (bytes, expected) in cases {
            let run = readFrames([bytes])
            #expect(run.events == [expected])
            #expect(run.failure == nil)
            #expect(run.reader.isIdle)
            #expect(run.reader.heldCapacity == 0)
        }
    }

    @Test("unmasks every payload length from 0 to 40 with every key phase, whole and bytewise")
    func unmasking() {
        let key: [UInt8] = [0x12, 0x9E, 0xC4, 0x7B]
        for count in 0...40 {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let bytes = frame(2, payload, key: key)
            #expect(readFrames([bytes]).events == [.binary(payload)], "\(count) bytes")
            #expect(readFrames(bytewise(bytes)).events == [.binary(payload)], "\(count) bytes, bytewise")
            // Split inside the payload at every point, so the key resumes at every phase.
            for split in 0...count {
                let cut = bytes.count - count + split
                #expect(readFrames([Array(bytes[..<cut]), Array(bytes[cut...])]).events == [.binary(payload)])
            }
        }
    }

    @Test("every split of a stream into two or three pieces, and bytewise, yields the same events")
    func splits() {
        let long = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
        let stream = text("héllo ", fin: false) + frame(9, [1, 2, 3]) + frame(0, Array("wörld 𝄞".utf8))
            + frame(2, long) + frame(10, []) + closeFrame(1001, Array("gone".utf8))
        let expected: [FrameEvent] = [
            .ping([1, 2, 3]), .text(Array("héllo wörld 𝄞".utf8)), .binary(long), .pong([]),
            .close(code: 1001, reason: Array("gone".utf8)),
        ]
        #expect(readFrames([stream]).events == expected)
        #expect(readFrames(bytewise(stream)).events == expected)
        for split in 0...stream.count {
            let run = readFrames([Array(stream[..<split]), Array(stream[split...])])
            #expect(run.events == expected, "split at \(split)")
            #expect(run.failure == nil)
        }
        // Three pieces, over a shorter stream of two frames.
        let short = text("ab€", fin: true) + frame(9, [9, 8])
        for first in 0...short.count {
            for second in first...short.count {
                let pieces = [Array(short[..<first]), Array(short[first..<second]), Array(short[second...])]
                #expect(readFrames(pieces).events == [.text(Array("ab€".utf8)), .ping([9, 8])], "\(first), \(second)")
            }
        }
    }

    @Test("joins fragmented text and binary, with control frames between the fragments")
    func fragments() {
        let textRun = readFrames([text("one ", fin: false) + frame(9, [7]) + frame(0, Array("two ".utf8), fin: false)
            + frame(10, [8]) + frame(0, [], fin: false) + frame(0, Array("three".utf8))])
        #expect(textRun.events == [.ping([7]), .pong([8]), .text(Array("one two three".utf8))])
        #expect(textRun.reader.isIdle && textRun.reader.heldCapacity == 0)

        // A character split across fragments is whole once joined.
        let euro = Array("€".utf8)
        let split = readFrames([frame(1, [euro[0]], fin: false), frame(0, [euro[1]], fin: false), frame(0, [euro[2]])])
        #expect(split.events == [.text(euro)])

        let binaryRun = readFrames([frame(2, [1, 2], fin: false), frame(0, [3]), frame(2, [4])])
        #expect(binaryRun.events == [.binary([1, 2, 3]), .binary([4])])

        // Empty fragments, then a final one with everything.
        #expect(readFrames([frame(1, [], fin: false) + frame(0, [], fin: false) + frame(0, Array("x".utf8))]).events
            == [.text(Array("x".utf8))])

        // In the middle of a message the reader is not idle; it holds the fragments.
        var reader = readFrames([text("partial", fin: false)]).reader
        #expect(!reader.isIdle)
        #expect(reader.heldCapacity >= 7)
        var events: [FrameEvent] = []
        let failure = frame(0, Array(" done".utf8)).withUnsafeBytes { reader.feed($0) { events.append($0) } }
        #expect(failure == nil)
        #expect(events == [.text(Array("partial done".utf8))])
        #expect(reader.isIdle && reader.heldCapacity == 0)
    }

    @Test("refuses each protocol violation with 1002, fed whole and bytewise")
    func protocolErrors() {
        var cases: [(String, [UInt8])] = [
            ("unmasked text", frame(1, Array("hi".utf8), masked: false)),
            ("unmasked ping", frame(9, [], masked: false)),
            ("RSV1", frame(1, Array("hi".utf8), rsv: 4)),
            ("RSV2", frame(2, [1], rsv: 2)),
            ("RSV3", frame(9, [], rsv: 1)),
            ("fragmented close", frame(8, [], fin: false)),
            ("fragmented ping", frame(9, [1], fin: false)),
            ("fragmented pong", frame(10, [1], fin: false)),
            ("ping of 126 bytes", frame(9, Array(repeating: 1, count: 126))),
            ("close of 126 bytes", frame(8, [0x03, 0xE8] + Array(repeating: 0x61, count: 124))),
            ("continuation with no message", frame(0, Array("x".utf8))),
            ("continuation after a whole message", text("a") + frame(0, Array("b".utf8))),
            ("text inside a fragmented text", text("a", fin: false) + text("b")),
            ("binary inside a fragmented text", text("a", fin: false) + frame(2, [1])),
            ("text inside a fragmented binary", frame(2, [1], fin: false) + frame(9, []) + text("b")),
            ("64-bit length with its top bit set", header(2, declared: 1 << 63 | 5) + [1, 2, 3, 4, 5]),
            ("close payload of one byte", frame(8, [0x03])),
        ]
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            cases.append(("opcode \(opcode)", frame(opcode, [])))
        }
        for (name, bytes) in cases {
            for pieces in [[bytes], bytewise(bytes), [bytes, text("after")]] {
                let run = readFrames(pieces)
                #expect(run.failure?.code == 1002, "\(name)")
                #expect(run.reader.isIdle && run.reader.heldCapacity == 0)
            }
        }
    }

    @Test("fails on a bad header as soon as its first two bytes arrive")
    func failsFromTheFirstTwoBytes() {
        for bytes in [frame(1, Array("hello".utf8), masked: false), frame(5, [1, 2, 3]), frame(9, [1], fin: false),
                      frame(0, [1, 2, 3]), frame(1, [1], rsv: 4)] {
            let run = readFrames(bytewise(bytes))
            #expect(run.failure?.code == 1002)
            #expect(run.failedAt == 1, "failed at byte \(run.failedAt ?? -1)")
        }
    }

    @Test("refuses a frame or a message over maxMessage with 1009, from its header")
    func tooBig() {
        // Exactly the limit is fine, in one frame or in fragments.
        let hundred = Array(repeating: UInt8(0x61), count: 100)
        #expect(readFrames([frame(2, hundred)], maxMessage: 100).events == [.binary(hundred)])
        #expect(readFrames([frame(1, Array(hundred[..<60]), fin: false) + frame(9, [1, 2, 3]) + frame(0, Array(hundred[60...]))],
                     maxMessage: 100).events == [.ping([1, 2, 3]), .text(hundred)])

        // One byte more fails on the header alone, no payload sent.
        let one = readFrames([header(2, declared: 101)], maxMessage: 100)
        #expect(one.failure?.code == 1009)
        #expect(one.reader.heldCapacity == 0)
        // So does a huge 64-bit length.
        let huge = readFrames([header(1, declared: 1 << 40)], maxMessage: 100)
        #expect(huge.failure?.code == 1009)
        // Fragments summing over it fail on the header of the one that passes the limit.
        let pieces = [frame(1, Array(hundred[..<60]), fin: false), frame(9, []),
                      frame(0, Array(hundred[..<30]), fin: false), header(0, declared: 11)]
        let summed = readFrames(pieces, maxMessage: 100)
        #expect(summed.failure?.code == 1009)
        #expect(summed.failedAt == 3)
        #expect(summed.events == [.ping([])])
        // Control frames do not count toward a message.
        #expect(readFrames([frame(9, Array(hundred[..<50]))], maxMessage: 10).events == [.ping(Array(hundred[..<50]))])
    }

    @Test("refuses text that is not UTF-8 with 1007 at its first bad byte, before the message ends")
    func failFastText() {
        // Inside one frame fed bytewise: the feed with the 0xFF fails.
        let payload = Array("hello".utf8) + [0xFF] + Array(" world, more to come".utf8)
        let bytes = frame(1, payload)
        let run = readFrames(bytewise(bytes))
        #expect(run.failure?.code == 1007)
        #expect(run.failedAt == bytes.count - payload.count + 5)

        // A continuation byte that is not one: fails at that byte.
        let broken = frame(1, [0x61, 0xE2, 0x28, 0x61, 0x62])
        #expect(readFrames(bytewise(broken)).failedAt == broken.count - 3)

        // Across fragments: the bad fragment fails; the last never needs to arrive.
        let fragments = [text("valid ", fin: false), frame(0, [0x61, 0xED, 0xA0, 0x80], fin: false), text("never", fin: true)]
        let fragmented = readFrames(fragments)
        #expect(fragmented.failure?.code == 1007)
        #expect(fragmented.failedAt == 1)
        #expect(fragmented.events.isEmpty)

        // An overlong encoding in a whole frame.
        #expect(readFrames([frame(1, [0xC0, 0xAF])]).failure?.code == 1007)
        // A message ending inside a character fails at its end.
        let cut = readFrames([frame(1, [0x61, 0xE2, 0x82], fin: false), frame(9, []), frame(0, [])])
        #expect(cut.failure?.code == 1007)
        #expect(cut.failedAt == 2)
        #expect(cut.events == [.ping([])])
        #expect(readFrames([frame(1, [0xF0, 0x9F, 0x98])]).failure?.code == 1007)
        // Binary is not checked.
        #expect(readFrames([frame(2, [0xFF, 0xC0])]).events == [.binary([0xFF, 0xC0])])
    }

    @Test("accepts exactly the close codes that may be received, and only UTF-8 reasons")
    func closeCodes() {
        func valid(_ code: Int) -> Bool { (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code) }
        for code in 0...0xFFFF {
            let run = readFrames([closeFrame(UInt16(code))])
            if valid(code) {
                #expect(run.events == [.close(code: UInt16(code), reason: [])], "\(code)")
                #expect(run.failure == nil, "\(code)")
            } else {
                #expect(run.failure?.code == 1002, "\(code)")
                #expect(run.events.isEmpty, "\(code)")
            }
        }
        for code in [1004, 1005, 1006, 1012, 1014, 1015, 1016, 2999, 5000, 999, 0] { #expect(!FrameReader.mayBeReceived(closeCode: UInt16(code))) }
        let badReason = readFrames([closeFrame(1000, [0x6F, 0x6B, 0xC3])])
        #expect(badReason.failure?.code == 1007)
        #expect(badReason.events.isEmpty)
        #expect(readFrames([closeFrame(1000, Array("ok ✓".utf8))]).events == [.close(code: 1000, reason: Array("ok ✓".utf8))])
    }

    @Test("reads nothing after a close, in the same feed or later")
    func stopsAfterClose() {
        let run = readFrames([text("a") + closeFrame(1000) + text("b") + frame(3, []), text("c"), [0xFF, 0xFF]])
        #expect(run.events == [.text(Array("a".utf8)), .close(code: 1000, reason: [])])
        #expect(run.failure == nil)
        #expect(run.reader.isIdle && run.reader.heldCapacity == 0)
        // A close between fragments ends the reader too, dropping the fragments.
        let mid = readFrames([text("part", fin: false) + frame(8, []) + frame(0, Array("rest".utf8))])
        #expect(mid.events == [.close(code: nil, reason: [])])
        #expect(mid.reader.heldCapacity == 0)
    }

    @Test("reads 16-bit and 64-bit lengths, minimal or not")
    func lengths() {
        for count in [0, 5, 125, 126, 127, 1000, 0xFFFF, 0x10000, 70_000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            for form in [LengthForm.minimal, .sixteen, .sixtyFour] where !(form == .sixteen && count > 0xFFFF) {
                let bytes = frame(2, payload, form: form)
                #expect(readFrames([bytes]).events == [.binary(payload)], "\(count) bytes, \(form)")
                // The length split across feeds.
                let (a, b) = (min(3, bytes.count), min(7, bytes.count))
                #expect(readFrames([Array(bytes[..<a]), Array(bytes[a..<b]), Array(bytes[b...])]).events == [.binary(payload)])
            }
        }
        let first = frame(1, Array("x".utf8), form: .sixtyFour)
        #expect(first.count == 2 + 8 + 4 + 1)
    }

    @Test("is at most 48 bytes, idle between frames and holding memory only mid-frame")
    func idleMemory() {
        #expect(MemoryLayout<FrameReader>.size <= 48)
        var reader = FrameReader(maxMessage: 1 << 16)
        #expect(reader.isIdle && reader.heldCapacity == 0)
        func feed(_ bytes: [UInt8]) -> [FrameEvent] {
            var events: [FrameEvent] = []
            let failure = bytes.withUnsafeBytes { reader.feed($0) { events.append($0) } }
            #expect(failure == nil)
            return events
        }
        let whole = text(String(repeating: "y", count: 100))
        for _ in 0..<3 {
            #expect(feed(whole).count == 1)
            #expect(reader.isIdle && reader.heldCapacity == 0)
        }
        // Part of a header: held, not idle.
        #expect(feed(Array(whole[..<3])).isEmpty)
        #expect(!reader.isIdle && reader.heldCapacity > 0)
        // The rest of the header: a frame begun, not idle, nothing held yet.
        #expect(feed(Array(whole[3..<6])).isEmpty)
        #expect(!reader.isIdle && reader.heldCapacity == 0)
        // Part of the payload: held.
        #expect(feed(Array(whole[6..<50])).isEmpty)
        #expect(!reader.isIdle && reader.heldCapacity >= 44)
        #expect(feed(Array(whole[50...])) == [.text(Array(String(repeating: "y", count: 100).utf8))])
        #expect(reader.isIdle && reader.heldCapacity == 0)
        // Part of a ping's payload: held; then released.
        let ping = frame(9, Array(repeating: 1, count: 20))
        #expect(feed(Array(ping[..<10])).isEmpty)
        #expect(!reader.isIdle && reader.heldCapacity > 0)
        #expect(feed(Array(ping[10...])) == [.ping(Array(repeating: 1, count: 20))])
        #expect(reader.isIdle && reader.heldCapacity == 0)
        // An empty feed changes nothing.
        #expect(feed([]).isEmpty)
        #expect(reader.isIdle)
    }
}
