/// The fuzzer's bytes read as a stream of choices: each read takes what it
/// needs from the front, and an exhausted input reads as zeros, so every
/// input (the empty one too) is a complete, replayable program.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isExhausted: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<count` (`count` > 0).
    mutating func choose(_ count: Int) -> Int {
        Int(byte()) % count
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[choose(items.count)]
    }

    mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    mutating func uint16() -> UInt16 {
        UInt16(byte()) << 8 | UInt16(byte())
    }

    mutating func uint64() -> UInt64 {
        var x: UInt64 = 0
        for _ in 0..<8 { x = x << 8 | UInt64(byte()) }
        return x
    }

    /// A double that is usually one of the values where the math has edges
    /// (ends, halves, signed zero, huge, tiny, non-finite), else a small
    /// decimal, else any bit pattern.
    mutating func double() -> Double {
        switch choose(8) {
        case 0, 1, 2: return pick(Self.edges)
        case 3, 4, 5: return Double(Int(uint16()) - 32768) / pick([1, 10, 100, 1000, 32768])
        case 6: return Double(Int16(bitPattern: uint16()))
        default: return Double(bitPattern: uint64())
        }
    }

    /// A short string: usually one of `names`, else arbitrary bytes as UTF-8 (repaired).
    mutating func string(_ names: [String]) -> String {
        if !names.isEmpty, choose(4) != 0 { return pick(names) }
        let count = choose(12)
        var raw: [UInt8] = []
        for _ in 0..<count { raw.append(byte()) }
        return String(decoding: raw, as: UTF8.self)
    }

    static let edges: [Double] = [
        0, -0.0, 1, -1, 0.5, -0.5, 0.25, 0.75, 0.999999, 1.000001, 2, -2, 0.1, 0.3,
        1e-9, 1e15, -1e15, 9.007199254740992e15, 1e300, -1e300, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity, .nan,
    ]
}
