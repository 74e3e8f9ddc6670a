import Testing
@testable import TandemServer

@Suite("UTF-8 validator")
struct UTF8ValidatorTests {
    @Test("agrees with the standard library on every one- and two-byte sequence")
    func agreesOnShortSequences() {
        for a in 0...255 {
            #expect(UTF8Validator.isValid([UInt8(a)]) == (String(validating: [UInt8(a)], as: UTF8.self) != nil))
            for b in 0...255 {
                let bytes = [UInt8(a), UInt8(b)]
                #expect(UTF8Validator.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
            }
        }
    }

    @Test("agrees with the standard library on three- and four-byte sequences around every lead byte's edges")
    func agreesOnLongSequences() {
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in UInt8(0xE0)...0xF5 {
            for b in edges {
                for c in edges {
                    let three = [lead, b, c]
                    #expect(UTF8Validator.isValid(three) == (String(validating: three, as: UTF8.self) != nil), "\(three)")
                    for d in edges {
                        let four = [lead, b, c, d]
                        #expect(UTF8Validator.isValid(four) == (String(validating: four, as: UTF8.self) != nil), "\(four)")
                    }
                }
            }
        }
    }

    @Test("fed in pieces, fails at the first bad byte and is complete only on a character boundary")
    func pieces() {
        let text = Array("κόσμε ✓ 𝄞".utf8)
        for split in 0...text.count {
            var validator = UTF8Validator()
            let head = validator.feed(text[..<split])
            let tail = validator.feed(text[split...])
            #expect(head && tail && validator.complete)
        }
        var cut = UTF8Validator()
        let started = cut.feed([0xF0, 0x9D])
        #expect(started && !cut.complete)
        let ascii = cut.feed([0x41])
        #expect(!ascii, "an ASCII byte where a continuation is owed")
        var surrogate = UTF8Validator()
        let encoded = surrogate.feed([0xED, 0xA0, 0x80])
        #expect(!encoded)
    }
}
