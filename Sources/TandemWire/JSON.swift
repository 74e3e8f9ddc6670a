/// A JSON value, as parsed from or written to the wire.
///
/// An object keeps its members in document order as `[JSONMember]` rather
/// than a dictionary or `[(String, JSON)]`: order lets a document be written
/// back as it was read, and a struct (unlike a tuple) lets the enum be
/// `Hashable`. Duplicate keys are kept as written; `subscript(key:)` reads the
/// last one, as JavaScript's `JSON.parse` does, so the server and the browser
/// client never disagree about what a message said.
///
/// Numbers are `Double`s and always finite: the parser refuses numbers that
/// overflow, and the writer never writes NaN or infinity.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([JSONMember])
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSON

    public init(_ key: String, _ value: JSON) {
        self.key = key
        self.value = value
    }
}

extension JSON {
    /// The value of the *last* member named `key` of an object (as `JSON.parse`
    /// in a browser reads duplicates); `nil` when absent or not an object.
    public subscript(key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The JSON type's name as people write it: `null`, `boolean`, `number`,
    /// `string`, `array` or `object` (what `SetValue.other` carries).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case let .number(x) = self { x } else { nil }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case let .string(s) = self { s } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSON]? {
        if case let .array(a) = self { a } else { nil }
    }

    /// The members in document order, if this is an object.
    public var objectValue: [JSONMember]? {
        if case let .object(m) = self { m } else { nil }
    }

    /// The bytes of this value as compact JSON.
    public var bytes: [UInt8] {
        var writer = JSONWriter()
        writer.append(self)
        return writer.bytes
    }
}
