import TandemCore
import TandemWire

/// Reads the relay format's items from untrusted bytes, never trapping:
/// everything wrong (the input running out, an overlong or non-minimal
/// varint, an integer past `Int`, a length past its cap or past the input
/// left, bad UTF-8, a boolean or tag byte out of range) throws a
/// `RelayDecodeError` naming the item and its offset.
struct RelayReader {
    /// The longest string or byte string accepted: 1 MiB (a client frame is at most `--max-frame`, ≤ 1 MiB).
    static let maxLength = 1 << 20
    /// The most entries in one list.
    static let maxEntries = 1_000_000

    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }

    func error(_ reason: String, at position: Int? = nil) -> RelayDecodeError {
        RelayDecodeError(offset: position ?? offset, reason: reason)
    }

    mutating func byte(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> UInt8 {
        guard offset < bytes.count else { throw error("input ends before \(what())") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Unsigned LEB128 in at most 10 bytes, minimal (no trailing zero groups), within 64 bits.
    mutating func unsigned(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        for group in 0..<10 {
            guard offset < bytes.count else { throw error("input ends inside \(what())", at: start) }
            let b = bytes[offset]
            offset += 1
            if group == 9, b > 1 { throw error("\(what()) does not fit in 64 bits", at: start) }
            value |= UInt64(b & 0x7F) << UInt64(7 * group)
            if b & 0x80 == 0 {
                if group > 0, b == 0 { throw error("\(what()) is a non-minimal varint", at: start) }
                return value
            }
        }
        throw error("\(what()) is a varint longer than 10 bytes", at: start)
    }

    /// A zig-zag LEB128 integer.
    mutating func signed(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> Int {
        let start = offset
        let z = try unsigned(what())
        let n = Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1)))
        guard let value = Int(exactly: n) else { throw error("\(what()) does not fit in Int", at: start) }
        return value
    }

    /// A count of things each at least `minSize` bytes long: at most `limit`,
    /// and never more than the input left could hold, so that nothing is
    /// allocated for entries that cannot be there.
    mutating func count(_ what: @autoclosure () -> String, limit: Int, minSize: Int) throws(RelayDecodeError) -> Int {
        let start = offset
        let n = try unsigned(what())
        guard n <= UInt64(limit) else { throw error("\(what()) \(n) is over the limit \(limit)", at: start) }
        let count = Int(n)
        guard count <= remaining / max(minSize, 1) else {
            throw error("\(what()) \(count) needs at least \(count * minSize) bytes, \(remaining) left", at: start)
        }
        return count
    }

    mutating func bool(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> Bool {
        let start = offset
        switch try byte(what()) {
        case 0: return false
        case 1: return true
        case let b: throw error("\(what()) is \(b), not 0 or 1", at: start)
        }
    }

    /// A length-prefixed byte string, as a range of the input.
    mutating func span(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> Range<Int> {
        let n = try count("the length of \(what())", limit: Self.maxLength, minSize: 1)
        defer { offset += n }
        return offset..<(offset + n)
    }

    mutating func byteString(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> [UInt8] {
        Array(bytes[try span(what())])
    }

    mutating func string(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> String {
        let start = offset
        let range = try span(what())
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw error("\(what()) is not valid UTF-8", at: start)
        }
        return text
    }

    mutating func client(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> ClientID {
        ClientID(try string(what()))
    }

    mutating func optionalClient(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> ClientID? {
        let start = offset
        switch try byte(what()) {
        case 0: return nil
        case 1: return try client(what())
        case let b: throw error("\(what()) has presence byte \(b), not 0 or 1", at: start)
        }
    }

    mutating func peer(_ what: @autoclosure () -> String) throws(RelayDecodeError) -> Peer {
        let peer = Peer(client: try client("\(what())'s client"), name: try string("\(what())'s name"), color: try string("\(what())'s color"))
        let start = offset
        switch try byte("\(what())'s focus") {
        case 0: return peer
        case 1: return Peer(client: peer.client, name: peer.name, color: peer.color, focus: try string("\(what())'s focus"))
        case let b: throw error("\(what())'s focus has presence byte \(b), not 0 or 1", at: start)
        }
    }

    /// A state's JSON, read as the wire reads a server's state
    /// (`StateValidator.check`: the kind's keys, then the colour's hex
    /// against its channels, then `Control.isValid`).
    mutating func state(_ what: @autoclosure () -> String, of control: Control, validator: StateValidator) throws(RelayDecodeError) -> ControlState {
        let start = offset
        let range = try span(what())
        let json: JSON
        do {
            json = try JSONParser.parse(bytes[range], maxDepth: 2)
        } catch {
            throw self.error("\(what()) for control \(control.id) is not JSON (\(error.reason))", at: start)
        }
        switch validator.check(control: control.id, state: json) {
        case let .success(state): return state
        case let .failure(violation): throw error("\(what()) is not a state of control \(control.id): \(violation.reason)", at: start)
        }
    }

    /// The input must end here.
    func end() throws(RelayDecodeError) {
        guard remaining == 0 else { throw error("\(remaining) trailing bytes after the message") }
    }
}
