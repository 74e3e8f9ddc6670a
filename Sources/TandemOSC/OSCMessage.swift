/// One argument of an OSC message, by its type tag: `f`, `i`, `s`, `d`.
public enum OSCArgument: Sendable, Hashable {
    case float(Float)
    case int(Int32)
    case string(String)
    case double(Double)

    /// The number it carries, whichever numeric type; `nil` for a string.
    public var number: Double? {
        switch self {
        case let .float(f): Double(f)
        case let .int(i): Double(i)
        case let .double(d): d
        case .string: nil
        }
    }

    /// The OSC type tag, for drop reasons.
    public var typeTag: Character {
        switch self {
        case .float: "f"
        case .int: "i"
        case .string: "s"
        case .double: "d"
        }
    }
}

/// One OSC message: an address and its arguments (the codec and sockets are elsewhere).
public struct OSCMessage: Sendable, Hashable {
    public var address: String
    public var arguments: [OSCArgument]

    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }

    public init(address: String, arguments: [OSCArgument]) {
        self.init(address, arguments)
    }
}

/// How `OSCOut` writes a number that is not a whole count: `f` (the default,
/// what every OSC tool reads) or `d` (exact, for peers that read doubles).
public enum OSCNumberWidth: Sendable, Hashable {
    case float
    case double

    func argument(_ value: Double) -> OSCArgument {
        switch self {
        case .float: .float(Float(value))
        case .double: .double(value)
        }
    }
}
