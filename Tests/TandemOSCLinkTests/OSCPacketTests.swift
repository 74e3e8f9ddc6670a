import TandemOSC
@testable import TandemOSCLink
import XCTest

final class OSCPacketTests: XCTestCase {
    private func messages(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [OSCMessage] {
        switch OSCPacket.decode(bytes) {
        case let .success(messages): return messages
        case let .failure(drop):
            XCTFail("dropped: \(drop.label) \(drop.reason)", file: file, line: line)
            return []
        }
    }

    private func drop(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> OSCDrop? {
        switch OSCPacket.decode(bytes) {
        case let .success(messages):
            XCTFail("decoded: \(messages)", file: file, line: line)
            return nil
        case let .failure(drop): return drop
        }
    }

    // MARK: round trips through liblo

    func testEveryArgumentTypeRoundTrips() {
        let message = OSCMessage("/demo/size", [
            .float(0.25), .float(-Float.greatestFiniteMagnitude), .float(.infinity),
            .int(0), .int(.max), .int(.min),
            .string(""), .string("abc"), .string("abcd"), .string("#336699 ünïcødé ✓"),
            .double(0.1), .double(-1e300), .double(.leastNonzeroMagnitude),
        ])
        XCTAssertEqual(messages(OSCPacket.encode(message)), [message])
    }

    func testNoArgumentsRoundTrips() {
        let message = OSCMessage("/demo/dump")
        let bytes = OSCPacket.encode(message)
        XCTAssertEqual(bytes, OSCBytes.message("/demo/dump", ""))
        XCTAssertEqual(messages(bytes), [message])
    }

    func testNaNRoundTripsAsNaN() throws {
        let decoded = messages(OSCPacket.encode(OSCMessage("/a", [.float(.nan), .double(.nan)])))
        let arguments = try XCTUnwrap(decoded.first?.arguments)
        XCTAssertEqual(arguments.count, 2)
        XCTAssertTrue(arguments.allSatisfy { $0.number?.isNaN == true })
    }

    func testEncodingIsTheWireFormat() {
        // What the OSC 1.0 spec says, written by hand: liblo's bytes must be these.
        let bytes = OSCPacket.encode(OSCMessage("/a/b", [.int(7), .float(1.5), .string("hi"), .double(2)]))
        XCTAssertEqual(bytes, OSCBytes.message("/a/b", "ifsd", OSCBytes.int32(7) + OSCBytes.float(1.5) + OSCBytes.string("hi") + OSCBytes.double(2)))
    }

    // MARK: bytes liblo did not make

    func testHandWrittenMessage() {
        let bytes: [UInt8] = [
            0x2F, 0x61, 0x2F, 0x62, 0x00, 0x00, 0x00, 0x00,  // "/a/b" + padding
            0x2C, 0x69, 0x66, 0x00,                          // ",if"
            0x00, 0x00, 0x00, 0x2A,                          // 42
            0x3F, 0xC0, 0x00, 0x00,                          // 1.5
        ]
        XCTAssertEqual(messages(bytes), [OSCMessage("/a/b", [.int(42), .float(1.5)])])
    }

    func testBundleOfTwoMessages() {
        let bytes: [UInt8] = [
            0x23, 0x62, 0x75, 0x6E, 0x64, 0x6C, 0x65, 0x00,  // "#bundle"
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // time tag: immediately
            0x00, 0x00, 0x00, 0x0C,                          // 12 bytes
            0x2F, 0x78, 0x00, 0x00, 0x2C, 0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // /x ,i 1
            0x00, 0x00, 0x00, 0x0C,                          // 12 bytes
            0x2F, 0x79, 0x00, 0x00, 0x2C, 0x73, 0x00, 0x00, 0x6F, 0x6B, 0x00, 0x00,  // /y ,s "ok"
        ]
        XCTAssertEqual(messages(bytes), [OSCMessage("/x", [.int(1)]), OSCMessage("/y", [.string("ok")])])
        XCTAssertEqual(OSCBytes.bundle([OSCBytes.message("/x", "i", OSCBytes.int32(1)), OSCBytes.message("/y", "s", OSCBytes.string("ok"))]), bytes)
    }

    func testTimeTagsAreIgnored() {
        var bytes = OSCBytes.bundle([OSCBytes.message("/x", "")])
        bytes.replaceSubrange(8..<16, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(messages(bytes), [OSCMessage("/x")])
    }

    func testNestedBundlesInOrder() {
        let bytes = OSCBytes.bundle([
            OSCBytes.message("/a", "i", OSCBytes.int32(1)),
            OSCBytes.bundle([OSCBytes.message("/b", "f", OSCBytes.float(2)), OSCBytes.bundle([OSCBytes.message("/c", "")])]),
            OSCBytes.message("/d", "s", OSCBytes.string("four")),
        ])
        XCTAssertEqual(messages(bytes), [OSCMessage("/a", [.int(1)]), OSCMessage("/b", [.float(2)]), OSCMessage("/c"), OSCMessage("/d", [.string("four")])])
    }

    func testEmptyBundleHasNoMessages() {
        XCTAssertEqual(messages(OSCBytes.bundle([])), [])
    }

    func testBundlesNestEightDeepNotNine() {
        var eight = OSCBytes.message("/deep", "")
        for _ in 0..<8 { eight = OSCBytes.bundle([eight]) }
        XCTAssertEqual(messages(eight), [OSCMessage("/deep")])
        let nine = OSCBytes.bundle([eight])
        XCTAssertEqual(drop(nine)?.kind, .malformed)
        XCTAssertEqual(drop(nine)?.reason, "OSC bundles nested more than 8 deep")
    }

    func testBundleElementThatOverruns() {
        var bytes = OSCBytes.bundle([OSCBytes.message("/x", "i", OSCBytes.int32(1))])
        bytes[19] += 4
        XCTAssertEqual(drop(bytes), OSCDrop(.malformed, "an OSC bundle element of 16 bytes overruns the bundle (12 left)"))
        bytes[16] = 0x80  // a negative int32: far more than is left
        XCTAssertEqual(drop(bytes)?.kind, .malformed)
    }

    func testBundleElementThatFallsShort() {
        // A size smaller than the message: the rest is read as the next element's size.
        var bytes = OSCBytes.bundle([OSCBytes.message("/x", "i", OSCBytes.int32(1))])
        bytes[19] -= 4
        XCTAssertEqual(drop(bytes)?.kind, .malformed)
        // Bytes after the last element that are not a whole size.
        XCTAssertEqual(drop(OSCBytes.bundle([OSCBytes.message("/x", "")]) + [0, 0])?.reason,
                       "an OSC bundle ends inside an element's size (2 of 4 bytes)")
        XCTAssertEqual(drop(OSCBytes.string("#bundle") + [0, 0, 0])?.kind, .malformed)
        XCTAssertEqual(drop(OSCBytes.bundle([[]]))?.kind, .malformed)  // a zero-size element
    }

    func testBadMessageInsideBundleFailsTheWholeDatagram() {
        let bytes = OSCBytes.bundle([OSCBytes.message("/ok", ""), OSCBytes.message("/x", "i", [0, 0])])
        XCTAssertEqual(drop(bytes)?.kind, .malformed)
    }

    func testTrueFalseNilImpulse() {
        XCTAssertEqual(messages(OSCBytes.message("/t", "TFNI")), [OSCMessage("/t", [.int(1), .int(0)])])
        XCTAssertEqual(messages(OSCBytes.message("/bang", "I")), [OSCMessage("/bang")])
        XCTAssertEqual(messages(OSCBytes.message("/v", "NfN", OSCBytes.float(3))), [OSCMessage("/v", [.float(3)])])
    }

    func testInt64SymbolAndChar() {
        let bytes = OSCBytes.message("/m", "hScc", OSCBytes.int64(-(1 << 40)) + OSCBytes.string("sym") + OSCBytes.int32(0x41) + OSCBytes.int32(0xE9))
        XCTAssertEqual(messages(bytes), [OSCMessage("/m", [.double(-1_099_511_627_776), .string("sym"), .string("A"), .string("é")])])
        XCTAssertEqual(drop(OSCBytes.message("/m", "c", OSCBytes.int32(0)))?.kind, .malformed)
        XCTAssertEqual(drop(OSCBytes.message("/m", "c", OSCBytes.int32(0xD800)))?.kind, .malformed)
    }

    func testBlobTimetagMidiRGBAAreWrongType() {
        let blob = OSCBytes.message("/demo/gain", "b", OSCBytes.int32(3) + [1, 2, 3, 0])
        XCTAssertEqual(drop(blob), OSCDrop(.wrongType, "/demo/gain: type tag 'b' (blob) is not used by Tandem"))
        XCTAssertEqual(drop(OSCBytes.message("/t", "t", OSCBytes.int64(1)))?.reason, "/t: type tag 't' (timetag) is not used by Tandem")
        XCTAssertEqual(drop(OSCBytes.message("/m", "m", [0x90, 60, 100, 0]))?.reason, "/m: type tag 'm' (midi) is not used by Tandem")
        XCTAssertEqual(drop(OSCBytes.message("/r", "r", [255, 0, 0, 255]))?.reason, "/r: type tag 'r' (rgba) is not used by Tandem")
        // One blob anywhere drops the whole datagram, bundle and all.
        let bundle = OSCBytes.bundle([OSCBytes.message("/ok", "i", OSCBytes.int32(1)), blob])
        XCTAssertEqual(drop(bundle)?.kind, .wrongType)
    }

    func testTruncatedPackets() {
        let whole = OSCBytes.message("/a/b", "ifs", OSCBytes.int32(1) + OSCBytes.float(2) + OSCBytes.string("three"))
        XCTAssertEqual(messages(whole).count, 1)
        for count in 0..<whole.count {
            let drop = drop(Array(whole[..<count]))
            XCTAssertEqual(drop?.kind, .malformed, "\(count) bytes")
        }
    }

    func testGarbage() {
        XCTAssertEqual(drop([]), OSCDrop(.malformed, "an empty OSC packet"))
        XCTAssertEqual(drop(Array("hello world!".utf8))?.kind, .malformed)
        XCTAssertEqual(drop([0xFF, 0xFE, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00])?.kind, .malformed)
        // Type tags without their comma.
        XCTAssertEqual(drop(OSCBytes.string("/a") + OSCBytes.string("i") + OSCBytes.int32(1)),
                       OSCDrop(.malformed, "not an OSC packet (liblo: LO_EBADTYPE: the type tags do not start with ',')"))
        // An address with no type tags at all (OSC before 1.0).
        XCTAssertEqual(drop(OSCBytes.string("/a"))?.reason, "not an OSC packet (liblo: LO_ENOTYPE: no type tags after the address)")
        // Bytes left after the arguments.
        XCTAssertEqual(drop(OSCBytes.message("/a", "i", OSCBytes.int32(1) + [0, 0, 0, 0]))?.kind, .malformed)
        // An unknown type tag.
        XCTAssertEqual(drop(OSCBytes.message("/a", "x", OSCBytes.int32(1)))?.kind, .malformed)
    }

    func testAddressNotAlignedToFourBytes() {
        // "/ab" + NUL is 4 bytes; here one more NUL pushes the type tags off the 4-byte grid.
        let bytes: [UInt8] = Array("/ab".utf8) + [0, 0] + Array(",i".utf8) + [0, 0, 0] + OSCBytes.int32(1)
        XCTAssertEqual(drop(bytes)?.kind, .malformed)
        // An address without its padding.
        XCTAssertEqual(drop(Array("/a".utf8) + [0] + OSCBytes.string(",") )?.kind, .malformed)
    }

    func testInvalidUTF8() {
        let badString = OSCBytes.message("/a", "s", [0x66, 0xFF, 0x6F, 0x00])
        XCTAssertEqual(drop(badString), OSCDrop(.malformed, "/a: a string argument that is not UTF-8"))
        let badSymbol = OSCBytes.message("/a", "S", [0xC3, 0x28, 0x00, 0x00])
        XCTAssertEqual(drop(badSymbol)?.kind, .malformed)
        let badAddress = [0x2F, 0xC0, 0x80, 0x00] + OSCBytes.string(",")
        XCTAssertEqual(drop(badAddress), OSCDrop(.malformed, "an OSC address that is not UTF-8"))
    }

    func testDecodingLeavesTheBytesAlone() {
        let bytes = OSCBytes.message("/a", "ifdh", OSCBytes.int32(1) + OSCBytes.float(2) + OSCBytes.double(3) + OSCBytes.int64(4))
        let copy = bytes
        XCTAssertEqual(messages(bytes), [OSCMessage("/a", [.int(1), .float(2), .double(3), .double(4)])])
        XCTAssertEqual(bytes, copy)
    }

    func testDecodeOfARawBuffer() {
        let bytes = OSCBytes.message("/a", "i", OSCBytes.int32(9))
        let result = bytes.withUnsafeBytes { OSCPacket.decode($0) }
        XCTAssertEqual(try? result.get(), [OSCMessage("/a", [.int(9)])])
    }

    func testDropsQuoteALongAddressShort() {
        let address = "/" + String(repeating: "x", count: 200)
        let reason = drop(OSCBytes.message(address, "b", OSCBytes.int32(0)))?.reason ?? ""
        XCTAssertTrue(reason.hasPrefix("/" + String(repeating: "x", count: 94) + "…: type tag 'b'"), reason)
    }

    // MARK: another implementation's bytes

    /// A bundle python-osc wrote (a message of f i s T F N h d, then a nested bundle of /demo/dump).
    func testPythonOSCBundle() throws {
        let hex = "2362756e646c65000000000000000001000000342f64656d6f2f6761696e00002c66697354464e68640000003f000000"
            + "00000003416e6e0000000100000000003fd0000000000000000000242362756e646c65000000000000000001000000102f"
            + "64656d6f2f64756d7000002c000000"
        var bytes: [UInt8] = []
        var digits = hex.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            bytes.append(try XCTUnwrap(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)))
        }
        XCTAssertEqual(messages(bytes), [
            OSCMessage("/demo/gain", [.float(0.5), .int(3), .string("Ann"), .int(1), .int(0), .double(1_099_511_627_776), .double(0.25)]),
            OSCMessage("/demo/dump"),
        ])
    }
}
