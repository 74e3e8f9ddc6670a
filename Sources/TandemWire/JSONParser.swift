/// Why a document is not JSON, and where: `offset` is the byte at which the
/// parser gave up, counted from 0.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser: every frame from a client passes through it.
///
/// Strict because the browser client, the load generator and third-party
/// clients must all mean the same thing by a frame, and leniency in one place
/// becomes a dialect everywhere. Refused: trailing commas, comments, `NaN` and
/// `Infinity`, leading zeros, a byte order mark, invalid UTF-8 (overlong forms,
/// encoded surrogates, code points past U+10FFFF), unescaped control
/// characters in strings, unknown or lone-surrogate escapes, numbers that
/// overflow a `Double`, data after the value, and nesting deeper than
/// `maxDepth` arrays and objects (which also bounds the recursion). Any value
/// may be the top level, as RFC 8259 allows.
public enum JSONParser {
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 32) throws(JSONParseError) -> JSON {
        // The closures of withContiguousStorageIfAvailable rethrow untyped
        // errors, so the typed error travels out in a Result.
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            var reader = JSONReader(buffer, maxDepth: maxDepth)
            return Result { () throws(JSONParseError) in try reader.document() }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        let result = copy.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer, maxDepth: maxDepth)
            return Result { () throws(JSONParseError) in try reader.document() }
        }
        return try result.get()
    }
}

/// The recursive-descent state of one parse. Every read of `bytes` is behind
/// an `i < bytes.count` check: a release build does not bounds-check an
/// unsafe buffer, and this code reads bytes from strangers.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var i = 0
    var depth = 0
    /// Reused for strings with escapes or non-ASCII, so decoding them allocates once per string.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func document() throws(JSONParseError) -> JSON {
        skipSpace()
        let value = try value()
        skipSpace()
        guard i == bytes.count else { throw fail("unexpected \(found) after the JSON value") }
        return value
    }

    // MARK: values

    mutating func value() throws(JSONParseError) -> JSON {
        guard i < bytes.count else { throw fail("unexpected end of input, expected a value") }
        switch bytes[i] {
        case ASCII.openBrace: return try object()
        case ASCII.openBracket: return try array()
        case ASCII.quote: return .string(try string())
        case ASCII.t: try literal("true"); return .bool(true)
        case ASCII.f: try literal("false"); return .bool(false)
        case ASCII.n: try literal("null"); return .null
        case ASCII.minus, ASCII.zero...ASCII.nine: return .number(try number())
        default: throw fail("unexpected \(found), expected a value")
        }
    }

    private mutating func object() throws(JSONParseError) -> JSON {
        try enter()
        var members: [JSONMember] = []
        skipSpace()
        if peek == ASCII.closeBrace {
            i += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard peek == ASCII.quote else { throw fail("unexpected \(found), expected a string key") }
            let key = try string()
            skipSpace()
            guard peek == ASCII.colon else { throw fail("unexpected \(found), expected ':'") }
            i += 1
            skipSpace()
            members.append(JSONMember(key, try value()))
            skipSpace()
            switch peek {
            case ASCII.comma:
                i += 1
            case ASCII.closeBrace:
                i += 1
                depth -= 1
                return .object(members)
            default:
                throw fail("unexpected \(found), expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(JSONParseError) -> JSON {
        try enter()
        var elements: [JSON] = []
        skipSpace()
        if peek == ASCII.closeBracket {
            i += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipSpace()
            elements.append(try value())
            skipSpace()
            switch peek {
            case ASCII.comma:
                i += 1
            case ASCII.closeBracket:
                i += 1
                depth -= 1
                return .array(elements)
            default:
                throw fail("unexpected \(found), expected ',' or ']'")
            }
        }
    }

    /// Steps over an opening bracket, refusing one nesting level too many.
    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth) arrays and objects") }
        i += 1
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let start = i
        let matched = word.withUTF8Buffer { expected in
            guard bytes.count - start >= expected.count else { return false }
            for k in 0..<expected.count where bytes[start + k] != expected[k] { return false }
            return true
        }
        guard matched else { throw fail("unexpected \(found), expected a value") }
        i += word.utf8CodeUnitCount
    }

    // MARK: bytes

    /// The byte at `i`, or `nil` at the end.
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case ASCII.space, ASCII.tab, ASCII.newline, ASCII.carriageReturn: i += 1
            default: return
            }
        }
    }

    /// The byte at `i` as an error message shows it.
    var found: String {
        guard let b = peek else { return "end of input" }
        if b > 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte \(hexByte(b))"
    }

    func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? i, reason: reason)
    }
}

/// `0xAB`, for error messages.
func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
}

/// The bytes the parser and writer look for, by name.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let colon: UInt8 = 0x3A
    static let upperA: UInt8 = 0x41
    static let upperE: UInt8 = 0x45
    static let upperF: UInt8 = 0x46
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let a: UInt8 = 0x61
    static let b: UInt8 = 0x62
    static let e: UInt8 = 0x65
    static let f: UInt8 = 0x66
    static let n: UInt8 = 0x6E
    static let r: UInt8 = 0x72
    static let t: UInt8 = 0x74
    static let u: UInt8 = 0x75
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
}
