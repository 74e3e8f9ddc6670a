/// A compact JSON writer that appends bytes straight into one buffer.
///
/// The server writes a frame for every recipient many times a second, so the
/// writer avoids `String` building: literals go in as `StaticString` bytes,
/// integers are formatted digit by digit, and strings are copied in runs
/// between the few bytes that need escaping. Commas and brackets are the
/// caller's: the encoders write fixed shapes, and `append(_: JSON)` handles
/// arbitrary values.
public struct JSONWriter: Sendable {
    /// Everything written so far.
    public var bytes: [UInt8]

    public init() {
        bytes = []
    }

    /// A writer with room for `capacity` bytes before it grows.
    public init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// `[e1,e2,…]`: each element written by `element`, commas between them.
    public mutating func append<S: Sequence>(array items: S, _ element: (inout JSONWriter, S.Element) -> Void) {
        bytes.append(ASCII.openBracket)
        var first = true
        for item in items {
            if !first { bytes.append(ASCII.comma) }
            first = false
            element(&self, item)
        }
        bytes.append(ASCII.closeBracket)
    }

    /// Literal JSON text, such as `{"type":"update","rev":`, copied as is.
    public mutating func append(raw text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Already-encoded JSON, such as a cached fragment, copied as is.
    public mutating func append(_ fragment: [UInt8]) {
        bytes.append(contentsOf: fragment)
    }

    /// One byte, such as a `,` between elements.
    public mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// `"key":`, escaped.
    public mutating func append(key: String) {
        append(string: key)
        bytes.append(ASCII.colon)
    }

    public mutating func append(bool: Bool) {
        if bool { append(raw: "true") } else { append(raw: "false") }
    }

    public mutating func appendNull() {
        append(raw: "null")
    }

    /// A string in quotes, escaped per RFC 8259: `"` and `\` with a backslash,
    /// control characters as `\u00XX`; everything else, non-ASCII included, as
    /// its UTF-8 bytes (a Swift string is always valid UTF-8).
    public mutating func append(string: String) {
        var string = string
        bytes.append(ASCII.quote)
        string.withUTF8 { utf8 in
            var run = 0
            for k in 0..<utf8.count {
                let b = utf8[k]
                guard b < 0x20 || b == ASCII.quote || b == ASCII.backslash else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<k]))
                bytes.append(ASCII.backslash)
                if b < 0x20 {
                    append(raw: "u00")
                    bytes.append(hexDigits[Int(b >> 4)])
                    bytes.append(hexDigits[Int(b & 15)])
                } else {
                    bytes.append(b)
                }
                run = k + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(ASCII.quote)
    }

    /// Any JSON value, compactly.
    public mutating func append(_ json: JSON) {
        switch json {
        case .null:
            appendNull()
        case let .bool(b):
            append(bool: b)
        case let .number(x):
            append(number: x)
        case let .string(s):
            append(string: s)
        case let .array(elements):
            append(array: elements) { $0.append($1) }
        case let .object(members):
            bytes.append(ASCII.openBrace)
            for (k, member) in members.enumerated() {
                if k > 0 { bytes.append(ASCII.comma) }
                append(key: member.key)
                append(member.value)
            }
            bytes.append(ASCII.closeBrace)
        }
    }
}

/// Lower-case, as JavaScript's `JSON.stringify` writes `\u001f`.
private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
