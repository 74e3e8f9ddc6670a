/// An incremental UTF-8 check (RFC 3629: no overlongs, no surrogates, nothing
/// above U+10FFFF) over bytes that arrive in pieces, so that a text message
/// is refused at its first bad byte rather than after its last (the
/// Autobahn|Testsuite's "fail fast" cases, 6.*).
struct UTF8Validator {
    /// Continuation bytes still owed by the current character.
    private var owed = 0
    /// The allowed range of the next byte (narrower than 80...BF right after some lead bytes).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF
    /// Whether a bad byte was seen; once false, stays false.
    private(set) var valid = true

    /// Whether everything fed so far ends on a character boundary and was valid.
    var complete: Bool { valid && owed == 0 }

    /// Feeds `bytes`; returns `valid`.
    @discardableResult
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard valid else { return false }
        for byte in bytes {
            if owed > 0 {
                guard byte >= low && byte <= high else { valid = false; return false }
                owed -= 1
                low = 0x80
                high = 0xBF
                continue
            }
            switch byte {
            case 0x00...0x7F: break
            case 0xC2...0xDF: owed = 1
            case 0xE0: owed = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: owed = 2
            case 0xED: owed = 2; high = 0x9F
            case 0xF0: owed = 3; low = 0x90
            case 0xF1...0xF3: owed = 3
            case 0xF4: owed = 3; high = 0x8F
            default: valid = false; return false
            }
        }
        return true
    }

    /// Whether `bytes` are whole, valid UTF-8.
    static func isValid<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var validator = UTF8Validator()
        validator.feed(bytes)
        return validator.complete
    }
}
