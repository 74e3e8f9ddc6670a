import Testing
import TandemCore
import TandemWire
@testable import TandemStorage

@Suite("Stored control states")
struct StateCodecTests {
    @Test("every kind of state is written exactly as the wire writes it and reads back equal, by shape and by kind")
    func roundTripEveryKind() throws {
        let states: [ControlState] = [
            .slider(value: 0.73), .slider(value: -1e-5),
            .snap(index: 3, value: 80),
            .range(RangeState(lower: -4, upper: 12)),
            .color(RGB(red: 0.2, green: 1, blue: 51.0 / 255)),
            .gauge(value: 120, fraction: 120.0 / 170),
        ]
        let kinds: [ControlKind] = [
            .slider(SliderMath(min: -1, max: 1, step: nil)), .slider(SliderMath(min: -1, max: 1, step: nil)),
            .snap(SnapSpec(values: [20, 40, 60, 80, 100])),
            .range(RangeMath(scale: -10...20, operable: -10...20, minGap: 1)),
            .color(step: nil),
            .gauge(GaugeMath(min: 0, max: 170)),
        ]
        for (state, kind) in zip(states, kinds) {
            let bytes = StateCodec.encode(state)
            var wire = JSONWriter()
            wire.append(state: state)
            #expect(bytes == wire.bytes)
            #expect(StateCodec.decode(bytes) == state, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(StateCodec.decode(bytes, as: kind) == state)
        }
        // The demo room's own controls, each with a state its math made.
        let demo: [(String, Thumb?, Double)] = [("size", .index, 100), ("blanks", .upper, 3), ("color", .green, 0.8), ("gain", nil, 0.73), ("bpm", nil, 120)]
        for (id, thumb, value) in demo {
            let control = demoControl(id)
            let state = demoState(id, thumb, value)
            #expect(state != control.initial && control.isValid(state))
            #expect(StateCodec.decode(StateCodec.encode(state), as: control.kind) == state)
        }
    }

    @Test("a state read as another kind is nil, and a gauge's fraction is recomputed for the gauge it is read for")
    func kindMustMatch() {
        let slider = StateCodec.encode(.slider(value: 0.5))
        #expect(StateCodec.decode(slider, as: .gauge(GaugeMath(min: 0, max: 1))) == nil)
        #expect(StateCodec.decode(slider, as: .color(step: nil)) == nil)
        let range = StateCodec.encode(.range(RangeState(lower: 1, upper: 2)))
        #expect(StateCodec.decode(range, as: .slider(SliderMath(min: 0, max: 9, step: 1))) == nil)
        let gauge = StateCodec.encode(.gauge(value: 50, fraction: 0.5))
        #expect(StateCodec.decode(gauge, as: .gauge(GaugeMath(min: 0, max: 200))) == .gauge(value: 50, fraction: 0.25))
    }

    @Test("anything but a state's exact shape is refused: extra or missing keys, wrong types, fractional integers, not JSON")
    func malformed() {
        let bad = [
            #"{"value":1,"extra":2}"#, #"{"index":1.5,"value":40}"#, #"{"index":1}"#,
            #"{"lower":0.5,"upper":2}"#, #"{"lower":1}"#, #"{"value":"1"}"#,
            #"{"red":1,"green":0,"blue":0,"hex":7}"#, #"{"red":1,"green":0}"#,
            #"{"value":1,"fraction":null}"#, #"[1]"#, #"1"#, #"{"value":1"#, "", #"{}"#,
            #"{"lower":1e300,"upper":2e300}"#,
        ]
        for text in bad {
            #expect(StateCodec.decode(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(StateCodec.decode(Array(#"{"red":1,"green":0,"blue":0}"#.utf8)) == .color(RGB(red: 1, green: 0, blue: 0)))
    }
}

@Suite("Stored room schemas")
struct SchemaCodecTests {
    @Test("the demo room is stored as a room file without rev and reads back equal, initial states included")
    func demoRoundTrip() throws {
        let bytes = SchemaCodec.encode(.demo)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"id":"demo","title":"Demo","controls":[{"id":"size","type":"snap""#))
        #expect(!text.contains("\"rev\""))
        #expect(text.contains(#""state":{"index":2,"value":60}"#))
        #expect(try SchemaCodec.decode(bytes) == .demo)
    }

    @Test("optional fields, live commits, proportional snaps and odd labels survive the round trip")
    func everyField() throws {
        let room = try schema("odd.room-1", [
            ControlDefinition(id: "s", type: "slider", label: "Tab\t\"quoted\" ünïcode", commit: "live", min: -3.5, max: 1e6),
            ControlDefinition(id: "c", type: "color", state: StateDefinition(red: 0.25, green: 1, blue: 0)),
            ControlDefinition(id: "n", type: "snap", values: [0.1, 0.2, 0.7], layout: "proportional", state: StateDefinition(index: 1)),
            ControlDefinition(id: "r", type: "range", scale: [-100, 100], operable: [-50, 60], minGap: 0, state: StateDefinition(lower: 3, upper: 3)),
            ControlDefinition(id: "g", type: "gauge", min: -1, max: 1),
        ])
        #expect(try SchemaCodec.decode(SchemaCodec.encode(room)) == room)
    }

    @Test("a compact room's layout survives the round trip")
    func compactLayout() throws {
        let room = try RoomSchema(validating: RoomDefinition(id: "panel", layout: "compact", controls: [ControlDefinition(id: "g", type: "gauge", min: 0, max: 1)]))
        #expect(room.layout == .compact)
        #expect(try SchemaCodec.decode(SchemaCodec.encode(room)) == room)
    }

    @Test("toggle, xy and button states round-trip, fit only their kinds, and malformed ones are nil")
    func newKinds() throws {
        for state: ControlState in [.toggle(on: true), .toggle(on: false), .xy(x: 0.25, y: 632), .button(presses: 41)] {
            #expect(StateCodec.decode(StateCodec.encode(state)) == state)
        }
        #expect(StateCodec.decode(Array(#"{"on":true}"#.utf8), as: .toggle) == .toggle(on: true))
        #expect(StateCodec.decode(Array(#"{"on":true}"#.utf8), as: .button) == nil)
        #expect(StateCodec.decode(Array(#"{"presses":3}"#.utf8), as: .button) == .button(presses: 3))
        let pad = ControlKind.xy(XYSpec(x: Axis(math: SliderMath(min: 0, max: 1)), y: Axis(math: SliderMath(min: 0, max: 1))))
        #expect(StateCodec.decode(Array(#"{"x":0.5,"y":1}"#.utf8), as: pad) == .xy(x: 0.5, y: 1))
        #expect(StateCodec.decode(Array(#"{"value":0.5}"#.utf8), as: pad) == nil)
        for bad in [#"{"on":1}"#, #"{"on":"yes"}"#, #"{"x":1}"#, #"{"x":1,"y":"2"}"#, #"{"presses":1.5}"#, #"{"presses":true}"#] {
            #expect(StateCodec.decode(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test("a room of every new kind and option survives the schema codec")
    func newKindsSchema() throws {
        let room = try schema("synth", [
            ControlDefinition(id: "f", type: "slider", min: 20, max: 20000, unit: "Hz", state: StateDefinition(value: 440),
                              scaleName: "log", digits: 4, group: "Filter", description: "Cutoff"),
            ControlDefinition(id: "w", type: "snap", values: [0, 1], labels: ["sine", "saw"], group: "Osc"),
            ControlDefinition(id: "t", type: "toggle", state: StateDefinition(on: true)),
            ControlDefinition(id: "p", type: "xy", state: StateDefinition(x: 0.5, y: 100),
                              x: AxisDefinition(min: 0, max: 1, step: 0.5, label: "Mix"),
                              y: AxisDefinition(min: 10, max: 1000, scale: "log", digits: 2, unit: "Hz")),
            ControlDefinition(id: "b", type: "button", state: StateDefinition(presses: 3)),
            ControlDefinition(id: "g", type: "gauge", min: 0, max: 1, unit: "dB"),
        ])
        #expect(try SchemaCodec.decode(SchemaCodec.encode(room)) == room)
    }
}
