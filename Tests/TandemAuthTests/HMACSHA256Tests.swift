import Testing
import TandemAuth

@Suite("HMAC-SHA256")
struct HMACSHA256Tests {
    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test("matches RFC 4231 test case 2 (key \"Jefe\")")
    func rfc4231() {
        let tag = HMACSHA256.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(hex(tag) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("matches RFC 4231 test case 6 (a key longer than the block size)")
    func rfc4231LongKey() {
        let tag = HMACSHA256.authenticate(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                                          key: [UInt8](repeating: 0xAA, count: 131))
        #expect(hex(tag) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("an empty message and an empty key still give a 32-byte tag")
    func emptyInputs() {
        #expect(HMACSHA256.authenticate([], key: []).count == 32)
        #expect(hex(HMACSHA256.authenticate([], key: [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("equal is true only for the same bytes of the same length")
    func comparison() {
        #expect(HMACSHA256.equal([1, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.equal([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.equal([1, 2, 3], [1, 2]))
        #expect(HMACSHA256.equal([], []))
    }
}
