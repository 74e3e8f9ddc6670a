import TandemCore
import TandemOSC

/// A room with every control kind and the legal states the round trips use.
enum Fixtures {
    /// Every kind, linear and log sliders, stepped and free colours, log and stepped xy axes.
    static let kinds: RoomSchema = {
        try! RoomSchema(validating: RoomDefinition(id: "every-kind", controls: [
            ControlDefinition(id: "gain", type: "slider", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.5)),
            ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
            ControlDefinition(id: "free", type: "slider", min: -3, max: 7),
            ControlDefinition(id: "size", type: "snap", values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt",
                              state: StateDefinition(index: 2), labels: ["xs", "s", "m", "l", "xl"]),
            ControlDefinition(id: "blanks", type: "range", scale: [0, 9], operable: [0, 3], minGap: 1,
                              state: StateDefinition(lower: 0, upper: 1)),
            ControlDefinition(id: "color", type: "color", step: 1.0 / 255, state: StateDefinition(hex: "#336699")),
            ControlDefinition(id: "tint", type: "color", commit: "live"),
            ControlDefinition(id: "bpm", type: "gauge", min: 0, max: 170, state: StateDefinition(value: 67)),
            ControlDefinition(id: "filter", type: "toggle"),
            ControlDefinition(id: "pad", type: "xy", x: AxisDefinition(min: -1, max: 1, step: 0.25),
                              y: AxisDefinition(min: 20, max: 20000, scale: "log")),
            ControlDefinition(id: "grid", type: "xy", x: AxisDefinition(min: 0, max: 10, step: 1),
                              y: AxisDefinition(min: 0, max: 10, step: 1)),
            ControlDefinition(id: "go", type: "button"),
        ]))
    }()

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
