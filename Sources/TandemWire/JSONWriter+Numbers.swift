extension JSONWriter {
    /// A number as JSON: an integral value below 2^53 in magnitude as an
    /// integer ("2", "-3"; -0.0 as "0", since JSON readers differ on "-0"),
    /// any other finite value as Swift's shortest round-trip `description`
    /// ("0.33", "1e-05", "9007199254740992.0", "1e+300"), which is valid JSON
    /// and parses back to the same `Double`. NaN and infinity have no JSON
    /// form and should never get here; `null` is written rather than an
    /// invalid document.
    public mutating func append(number x: Double) {
        guard x.isFinite else {
            appendNull()
            return
        }
        if x.magnitude < 9_007_199_254_740_992, x == x.rounded(.towardZero) {
            append(int: Int(x))
            return
        }
        // Small strings live inline, so this allocates nothing on the heap.
        bytes.append(contentsOf: x.description.utf8)
    }

    /// An integer in decimal, without going through a `String`.
    public mutating func append(int: Int) {
        if int < 0 { bytes.append(ASCII.minus) }
        var rest = int.magnitude
        let start = bytes.count
        repeat {
            bytes.append(ASCII.zero + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }
}
