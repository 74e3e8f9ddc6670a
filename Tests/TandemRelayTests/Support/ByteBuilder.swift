/// Relay bytes spelled out by hand, independently of the codec's writer, from
/// the table in RelayCodec.swift (and docs/relay-format.md).
final class ByteBuilder {
    var bytes: [UInt8] = []

    init(_ first: UInt8...) { bytes = first }

    @discardableResult
    func raw(_ b: UInt8...) -> Self {
        bytes += b
        return self
    }

    @discardableResult
    func raw(contentsOf b: [UInt8]) -> Self {
        bytes += b
        return self
    }

    /// `uint`: unsigned LEB128.
    @discardableResult
    func uint(_ value: UInt64) -> Self {
        var v = value
        repeat {
            let low = UInt8(v & 0x7F)
            v >>= 7
            bytes.append(v == 0 ? low : low | 0x80)
        } while v != 0
        return self
    }

    /// `int`: zig-zag, then `uint`.
    @discardableResult
    func int(_ value: Int) -> Self {
        uint(value >= 0 ? UInt64(value) * 2 : UInt64(-(value + 1)) * 2 + 1)
    }

    /// `string` (and `state`, whose JSON is a length-prefixed byte string too).
    @discardableResult
    func string(_ text: String) -> Self {
        uint(UInt64(text.utf8.count))
        bytes += text.utf8
        return self
    }
}
