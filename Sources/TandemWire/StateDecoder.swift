import TandemCore

/// Why a JSON state is not a state of the control's kind.
public struct StateDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// A state as the wire carried it: the typed state and, for a colour, the
/// `hex` it came with (checked against the channels by `StateValidator`).
public struct WireState: Sendable, Hashable {
    public var state: ControlState
    /// The colour's `hex` exactly as sent; `nil` for other kinds.
    public var hex: String?

    public init(state: ControlState, hex: String? = nil) {
        self.state = state
        self.hex = hex
    }
}

/// Reads a JSON state into a `ControlState` of a known kind, strictly: the
/// kind's keys and no others, numbers where numbers belong, whole numbers for
/// a snap's `index` and a range's bounds, a string `hex` for a colour. Values
/// are taken as sent — a gauge's `fraction` is not recomputed, a colour's
/// `hex` is kept — so that `Control.isValid` and the hex check judge what the
/// server actually said.
public enum StateDecoder {
    public static func decode(_ json: JSON, as kind: ControlKind) throws(StateDecodeError) -> WireState {
        guard case let .object(members) = json else {
            throw StateDecodeError("state is \(json.typeName), not an object")
        }
        let expected: [String] = switch kind {
        case .slider: ["value"]
        case .snap: ["index", "value"]
        case .range: ["lower", "upper"]
        case .color: ["red", "green", "blue", "hex"]
        case .gauge: ["value", "fraction"]
        case .toggle: ["on"]
        case .xy: ["x", "y"]
        case .button: ["presses"]
        }
        for member in members where !expected.contains(member.key) {
            throw StateDecodeError("unexpected key \"\(member.key)\" in a \(kind.typeName) state")
        }
        switch kind {
        case .slider:
            return WireState(state: .slider(value: try number("value", in: json)))
        case .snap:
            return WireState(state: .snap(index: try integer("index", in: json), value: try number("value", in: json)))
        case .range:
            return WireState(state: .range(RangeState(lower: try integer("lower", in: json),
                                                      upper: try integer("upper", in: json))))
        case .color:
            let rgb = RGB(red: try number("red", in: json), green: try number("green", in: json),
                          blue: try number("blue", in: json))
            guard let hexValue = json["hex"] else { throw StateDecodeError("missing \"hex\"") }
            guard let hex = hexValue.stringValue else {
                throw StateDecodeError("\"hex\" is \(hexValue.typeName), not a string")
            }
            return WireState(state: .color(rgb), hex: hex)
        case .gauge:
            return WireState(state: .gauge(value: try number("value", in: json), fraction: try number("fraction", in: json)))
        case .toggle:
            guard case let .bool(on)? = json["on"] else { throw StateDecodeError("\"on\" is missing or not true or false") }
            return WireState(state: .toggle(on: on))
        case .xy:
            return WireState(state: .xy(x: try number("x", in: json), y: try number("y", in: json)))
        case .button:
            return WireState(state: .button(presses: try integer("presses", in: json)))
        }
    }

    private static func number(_ key: String, in json: JSON) throws(StateDecodeError) -> Double {
        guard let value = json[key] else { throw StateDecodeError("missing \"\(key)\"") }
        guard let x = value.numberValue else { throw StateDecodeError("\"\(key)\" is \(value.typeName), not a number") }
        return x
    }

    private static func integer(_ key: String, in json: JSON) throws(StateDecodeError) -> Int {
        let x = try number(key, in: json)
        guard x.magnitude <= 9_007_199_254_740_992, let n = Int(exactly: x) else {
            throw StateDecodeError("\"\(key)\" is \(format(x)), not a whole number")
        }
        return n
    }
}

/// A number as JSON writes it, for messages.
func format(_ x: Double) -> String {
    var writer = JSONWriter()
    writer.append(number: x)
    return String(decoding: writer.bytes, as: UTF8.self)
}
