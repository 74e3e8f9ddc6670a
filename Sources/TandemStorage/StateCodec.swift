import TandemCore
import TandemWire

/// Control states as stored: the wire's JSON (`JSONWriter.append(state:)`),
/// read back by shape.
///
/// Each kind has its own set of keys, so a stored state names its kind
/// without the schema: `{"value"}` slider, `{"index","value"}` snap,
/// `{"lower","upper"}` range, `{"red","green","blue","hex"}` colour (hex
/// optional, derived, not read), `{"value","fraction"}` gauge, `{"on"}`
/// toggle (a boolean), `{"x","y"}` xy pad, `{"presses"}` button. Anything
/// else — another key set, a non-number, a fractional index, bound or press
/// count — is `nil`.
public enum StateCodec {
    /// The state as compact JSON, exactly as the wire writes it.
    public static func encode(_ state: ControlState) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.append(state: state)
        return writer.bytes
    }

    /// The state a JSON document describes, whatever its kind.
    public static func decode(_ bytes: some Collection<UInt8>) -> ControlState? {
        guard let json = try? JSONParser.parse(bytes, maxDepth: 2) else { return nil }
        return decode(json)
    }

    /// The state a JSON document describes, if it is a state of `kind`. A
    /// gauge's `fraction` is derived, so it is recomputed for `kind`'s bounds.
    /// Whether the state is *valid* for a control is `Control.isValid`'s call.
    public static func decode(_ bytes: some Collection<UInt8>, as kind: ControlKind) -> ControlState? {
        decode(bytes).flatMap { fit($0, to: kind) }
    }

    /// The state a parsed JSON value describes, whatever its kind.
    public static func decode(_ json: JSON) -> ControlState? {
        guard case let .object(members) = json else { return nil }
        var keys = Set<String>()
        for member in members { keys.insert(member.key) }
        switch keys {
        case ["value"]:
            guard let value = json["value"]?.numberValue else { return nil }
            return .slider(value: value)
        case ["index", "value"]:
            guard let index = integer(json["index"]), let value = json["value"]?.numberValue else { return nil }
            return .snap(index: index, value: value)
        case ["lower", "upper"]:
            guard let lower = integer(json["lower"]), let upper = integer(json["upper"]) else { return nil }
            return .range(RangeState(lower: lower, upper: upper))
        case ["red", "green", "blue"], ["red", "green", "blue", "hex"]:
            guard let red = json["red"]?.numberValue, let green = json["green"]?.numberValue,
                  let blue = json["blue"]?.numberValue else { return nil }
            if let hex = json["hex"], hex.stringValue == nil { return nil }
            return .color(RGB(red: red, green: green, blue: blue))
        case ["value", "fraction"]:
            guard let value = json["value"]?.numberValue, let fraction = json["fraction"]?.numberValue else { return nil }
            return .gauge(value: value, fraction: fraction)
        case ["on"]:
            guard case let .bool(on)? = json["on"] else { return nil }
            return .toggle(on: on)
        case ["x", "y"]:
            guard let x = json["x"]?.numberValue, let y = json["y"]?.numberValue else { return nil }
            return .xy(x: x, y: y)
        case ["presses"]:
            guard let presses = integer(json["presses"]) else { return nil }
            return .button(presses: presses)
        default:
            return nil
        }
    }

    /// `state` as a state of `kind`, or `nil` when it is another kind's.
    public static func fit(_ state: ControlState, to kind: ControlKind) -> ControlState? {
        switch (kind, state) {
        case (.slider, .slider), (.snap, .snap), (.range, .range), (.color, .color),
             (.toggle, .toggle), (.xy, .xy), (.button, .button):
            return state
        case let (.gauge(math), .gauge(value, _)):
            return .gauge(value: value, fraction: math.fraction(of: value))
        default:
            return nil
        }
    }

    private static func integer(_ json: JSON?) -> Int? {
        guard let x = json?.numberValue, x.magnitude <= 9_007_199_254_740_992 else { return nil }
        return Int(exactly: x)
    }
}
