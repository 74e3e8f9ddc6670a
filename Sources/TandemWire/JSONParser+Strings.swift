extension JSONReader {
    /// A string, from its opening quote: escapes decoded, UTF-8 validated.
    mutating func string() throws(JSONParseError) -> String {
        let open = i
        i += 1
        let start = i
        // Fast path: plain ASCII with no escapes (ids, thumbs, phases) becomes
        // a String straight from the input, without the scratch buffer.
        while i < bytes.count {
            let b = bytes[i]
            if b == ASCII.quote {
                i += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(i - 1)]), as: UTF8.self)
            }
            if b == ASCII.backslash || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case ASCII.quote:
                i += 1
                // Validated above byte by byte, so decoding repairs nothing.
                return String(decoding: scratch, as: UTF8.self)
            case ASCII.backslash:
                try escape()
            case 0..<0x20:
                throw fail("control character \(hexByte(b)) in a string (it must be escaped)")
            case 0x80...:
                try multibyte()
            default:
                scratch.append(b)
                i += 1
            }
        }
        throw fail("unterminated string", at: open)
    }

    /// One escape sequence, from its backslash.
    private mutating func escape() throws(JSONParseError) {
        let start = i
        i += 1
        guard let c = peek else { throw fail("unterminated string") }
        i += 1
        switch c {
        case ASCII.quote, ASCII.backslash, ASCII.slash: scratch.append(c)
        case ASCII.b: scratch.append(0x08)
        case ASCII.f: scratch.append(0x0C)
        case ASCII.n: scratch.append(0x0A)
        case ASCII.r: scratch.append(0x0D)
        case ASCII.t: scratch.append(0x09)
        case ASCII.u:
            let unit = try hex4()
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed at once by an escaped low one.
                guard i + 1 < bytes.count, bytes[i] == ASCII.backslash, bytes[i + 1] == ASCII.u else {
                    throw fail("lone surrogate \\u\(hex16(unit)) (a high surrogate needs a low one after it)", at: start)
                }
                i += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail("lone surrogate \\u\(hex16(unit)) (followed by \\u\(hex16(low)), not a low surrogate)", at: start)
                }
                appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00...0xDFFF:
                throw fail("lone surrogate \\u\(hex16(unit)) (a low surrogate without a high one)", at: start)
            default:
                appendScalar(unit)
            }
        default:
            throw fail("unknown escape \\\(Character(Unicode.Scalar(c)))", at: start)
        }
    }

    /// Four hex digits of a `\u` escape.
    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let b = peek else { throw fail("unterminated \\u escape") }
            let digit: UInt32
            switch b {
            case ASCII.zero...ASCII.nine: digit = UInt32(b - ASCII.zero)
            case ASCII.a...ASCII.f: digit = UInt32(b - ASCII.a) + 10
            case ASCII.upperA...ASCII.upperF: digit = UInt32(b - ASCII.upperA) + 10
            default: throw fail("\\u escape needs four hex digits, found \(found)")
            }
            unit = unit << 4 | digit
            i += 1
        }
        return unit
    }

    /// A code point from an escape, appended as UTF-8.
    private mutating func appendScalar(_ v: UInt32) {
        switch v {
        case ..<0x80:
            scratch.append(UInt8(v))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6))
            scratch.append(UInt8(0x80 | v & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18))
            scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }

    /// One multi-byte UTF-8 sequence, checked against RFC 3629's table:
    /// no overlong forms, no encoded surrogates, nothing past U+10FFFF.
    private mutating func multibyte() throws(JSONParseError) {
        let start = i
        let lead = bytes[i]
        // The allowed range of the second byte depends on the lead byte;
        // every later continuation byte is 80...BF.
        let count: Int
        let second: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: count = 2; second = 0x80...0xBF
        case 0xE0: count = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: count = 3; second = 0x80...0xBF
        case 0xED: count = 3; second = 0x80...0x9F
        case 0xF0: count = 4; second = 0x90...0xBF
        case 0xF1...0xF3: count = 4; second = 0x80...0xBF
        case 0xF4: count = 4; second = 0x80...0x8F
        default: throw fail("invalid UTF-8 (byte \(hexByte(lead)) cannot start a character)")
        }
        guard bytes.count - start >= count else { throw fail("invalid UTF-8 (truncated character)") }
        guard second.contains(bytes[start + 1]) else {
            throw fail("invalid UTF-8 (byte \(hexByte(bytes[start + 1])) after \(hexByte(lead)))", at: start + 1)
        }
        for k in 2..<count where !(0x80...0xBF).contains(bytes[start + k]) {
            throw fail("invalid UTF-8 (byte \(hexByte(bytes[start + k])) is not a continuation byte)", at: start + k)
        }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]))
        i += count
    }
}

/// `D83D`, for error messages.
private func hex16(_ v: UInt32) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([12, 8, 4, 0].map { digits[Int(v >> UInt32($0) & 15)] })
}
