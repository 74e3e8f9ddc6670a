/// OSC bytes written out by hand in the tests, not by liblo.
enum OSCBytes {
    /// A string, NUL-terminated and padded with NULs to a multiple of 4.
    static func string(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func int32(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
    }

    static func float(_ value: Float) -> [UInt8] { int32(Int32(bitPattern: value.bitPattern)) }

    static func int64(_ value: Int64) -> [UInt8] {
        int32(Int32(truncatingIfNeeded: value >> 32)) + int32(Int32(truncatingIfNeeded: value))
    }

    static func double(_ value: Double) -> [UInt8] { int64(Int64(bitPattern: value.bitPattern)) }

    /// A message: address, type tags (without the comma) and the argument bytes.
    static func message(_ address: String, _ tags: String, _ arguments: [UInt8] = []) -> [UInt8] {
        string(address) + string("," + tags) + arguments
    }

    /// A bundle of elements, each with its size; the time tag is "immediately".
    static func bundle(_ elements: [[UInt8]]) -> [UInt8] {
        string("#bundle") + [0, 0, 0, 0, 0, 0, 0, 1] + elements.flatMap { int32(Int32($0.count)) + $0 }
    }
}
