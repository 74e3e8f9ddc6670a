import Testing
import TandemAuth

@Suite("Base64url")
struct Base64URLTests {
    @Test("encodes RFC 4648's test vectors without padding, in the url-safe alphabet",
          arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
                      ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")] as [(String, String)])
    func encodesVectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("uses - and _ where base64 uses + and /")
    func urlSafeLetters() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("every byte string up to 5 bytes long survives a round trip")
    func roundTrips() {
        var bytes: [UInt8] = []
        for length in 0...5 {
            for seed in 0..<64 {
                bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 97 + seed * 31 + length) }
                #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            }
        }
    }

    @Test("refuses padding, the plain base64 letters, white space, a lone letter and stray bits",
          arguments: ["Zg==", "Zm8=", "+/8", "/w", "Zm 9v", "Zm9v\n", "Z", "Zm9vY", "Zh", "Zm9", "Zm9vYmF", "é"])
    func refusesNonCanonical(text: String) {
        // "Zh", "Zm9" and "Zm9vYmF" are "Zg", "Zm8" and "Zm9vYmE" with stray low bits set.
        #expect(Base64URL.decode(text) == nil)
    }
}
