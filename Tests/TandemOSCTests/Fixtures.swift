import TandemCore
import TandemOSC
import TandemTestSupport

/// A room with every control kind and the legal states the round trips use.
enum Fixtures {
    /// Every kind, linear and log sliders, stepped and free colours, log and stepped xy axes.
    static let kinds = EveryKindRoom.schema

    /// A room whose controls are named like the room's own addresses.
    static let clashing: RoomSchema = {
        try! RoomSchema(validating: RoomDefinition(id: "clash", controls: [
            ControlDefinition(id: "dump", type: "slider", min: 0, max: 1),
            ControlDefinition(id: "name", type: "slider", min: 0, max: 1),
            ControlDefinition(id: "step", type: "slider", min: 0, max: 10, step: 1),
        ]))
    }()

    static func control(_ id: String, in schema: RoomSchema = kinds) -> Control {
        schema.controls[schema.index(of: id)!]
    }

    /// Legal states of `control`, its initial one first; the values come from its own math where it has any.
    static func states(of control: Control) -> [ControlState] {
        var states = [control.initial]
        switch control.kind {
        case let .slider(math):
            states += [.slider(value: math.min), .slider(value: math.max), .slider(value: math.value(at: 0.37))]
        case let .snap(spec):
            states += spec.values.indices.map { .snap(index: $0, value: spec.values[$0]) }
        case let .range(math):
            states += [.range(RangeState(lower: math.operable.lowerBound, upper: math.operable.upperBound)),
                       .range(RangeState(lower: math.operable.upperBound - math.minGap, upper: math.operable.upperBound))]
        case let .color(step):
            states += [.color(RGB(red: 0, green: 1, blue: 0.2)), .color(RGB(red: 1, green: 1, blue: 1))]
            if step == nil { states += [.color(RGB(red: 0.37, green: 0.123456789, blue: 0.999))] }
        case let .gauge(math):
            states += [0.0, 42.5, 170, 1e6, -12.3456789].map { .gauge(value: $0, fraction: math.fraction(of: $0)) }
        case .toggle:
            states += [.toggle(on: true)]
        case let .xy(spec):
            states += [.xy(x: spec.x.math.min, y: spec.y.math.max), .xy(x: spec.x.math.value(at: 0.75), y: spec.y.math.value(at: 0.5))]
        case .button:
            states += [.button(presses: 1), .button(presses: ButtonMath.maxPresses)]
        }
        return states
    }
}

extension OSCMessage {
    /// A message from an address and arguments written inline.
    static func at(_ address: String, _ arguments: OSCArgument...) -> OSCMessage {
        OSCMessage(address, arguments)
    }
}
