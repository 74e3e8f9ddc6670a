import TandemCore
import TandemWire

/// Appends the relay format's items (RelayCodec.swift's table): LEB128
/// varints, zig-zag for signed integers, length-prefixed strings and bytes,
/// one-byte booleans and tags, control states as their wire JSON.
///
/// Writing never fails: every value of the messages' types has an encoding.
/// (Lengths past the decoder's caps do too; the reader refuses them.)
struct RelayWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func byte(_ b: UInt8) {
        bytes.append(b)
    }

    /// Unsigned LEB128: seven bits a byte, least significant first, the high bit set on all but the last.
    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed integer, zig-zag mapped (0, -1, 1, -2… as 0, 1, 2, 3…) then LEB128.
    mutating func signed(_ value: Int) {
        let n = Int64(value)
        unsigned(UInt64(bitPattern: (n << 1) ^ (n >> 63)))
    }

    /// A length or an entry count.
    mutating func count(_ n: Int) {
        unsigned(UInt64(n))
    }

    mutating func bool(_ b: Bool) {
        bytes.append(b ? 1 : 0)
    }

    mutating func string(_ s: String) {
        count(s.utf8.count)
        bytes.append(contentsOf: s.utf8)
    }

    mutating func client(_ id: ClientID) {
        string(id.rawValue)
    }

    /// Absent: `0`; present: `1` then the id.
    mutating func optionalClient(_ id: ClientID?) {
        guard let id else { return byte(0) }
        byte(1)
        client(id)
    }

    mutating func byteString(_ b: [UInt8]) {
        count(b.count)
        bytes.append(contentsOf: b)
    }

    /// The state as the wire writes it (`JSONWriter.append(state:)`), length-prefixed.
    mutating func state(_ state: ControlState) {
        var json = JSONWriter(capacity: 96)
        json.append(state: state)
        byteString(json.bytes)
    }

    mutating func peer(_ peer: Peer) {
        client(peer.client)
        string(peer.name)
        string(peer.color)
        if let focus = peer.focus {
            byte(1)
            string(focus)
        } else {
            byte(0)
        }
    }
}
