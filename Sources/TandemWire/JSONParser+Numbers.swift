extension JSONReader {
    /// A number per RFC 8259's grammar (`-? int frac? exp?`, no leading zeros,
    /// no `+`, no bare `.`), converted to the nearest `Double`; one too large
    /// for a `Double` is refused rather than becoming infinity.
    mutating func number() throws(JSONParseError) -> Double {
        let start = i
        let negative = peek == ASCII.minus
        if negative { i += 1 }

        // Digits are gathered into `mantissa` while they fit exactly, for the fast path below.
        var mantissa: UInt64 = 0
        var significant = 0
        var fractionDigits = 0

        guard let first = peek, isDigit(first) else { throw fail("unexpected \(found), expected a digit") }
        if first == ASCII.zero {
            i += 1
            if let next = peek, isDigit(next) { throw fail("leading zero in a number", at: i - 1) }
        } else {
            while let b = peek, isDigit(b) {
                accumulate(b, into: &mantissa, &significant)
                i += 1
            }
        }
        if peek == ASCII.dot {
            i += 1
            guard let b = peek, isDigit(b) else { throw fail("unexpected \(found), expected a digit after '.'") }
            while let b = peek, isDigit(b) {
                accumulate(b, into: &mantissa, &significant)
                fractionDigits += 1
                i += 1
            }
        }
        var exponent = 0
        if peek == ASCII.e || peek == ASCII.upperE {
            i += 1
            var exponentNegative = false
            if peek == ASCII.plus || peek == ASCII.minus {
                exponentNegative = peek == ASCII.minus
                i += 1
            }
            guard let b = peek, isDigit(b) else { throw fail("unexpected \(found), expected a digit in the exponent") }
            while let b = peek, isDigit(b) {
                // Saturates: the exact size of an absurd exponent does not matter.
                exponent = min(exponent * 10 + Int(b - ASCII.zero), 1_000_000)
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }

        // Clinger's fast path: with at most 15 significant digits the mantissa
        // is exact, and so is 10^k for k <= 22, so one IEEE multiplication or
        // division gives the correctly rounded result. It covers nearly every
        // number a client sends ("0.25", "-1", "67") without making a String.
        let scale = exponent - fractionDigits
        if significant <= 15, (-22...22).contains(scale) {
            let m = Double(mantissa)
            let magnitude = scale >= 0 ? m * powersOfTen[scale] : m / powersOfTen[-scale]
            return negative ? -magnitude : magnitude
        }
        // Otherwise the standard library's correctly rounded conversion; the
        // grammar was checked above, so it sees only valid JSON numbers.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw fail("number \(text.prefix(40)) is too large for a double", at: start)
        }
        return value
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= ASCII.zero && b <= ASCII.nine }

    /// Adds a digit to the mantissa, counting significant digits (leading zeros are not).
    private func accumulate(_ b: UInt8, into mantissa: inout UInt64, _ significant: inout Int) {
        if significant == 0 && b == ASCII.zero { return }
        significant += 1
        // Past 19 digits the mantissa could overflow; the fast path is off anyway.
        if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(b - ASCII.zero) }
    }
}

/// 10^0 through 10^22: every one is exactly representable as a `Double`.
private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
