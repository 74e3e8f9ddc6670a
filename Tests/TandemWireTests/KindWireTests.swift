import Testing
import TandemCore
import TandemWire

/// The wire of the kinds added in v1.1: what clients send (dy, `at` and `by`
/// pairs, boolean and object values), what the server writes (states and
/// schema fields), and room files with the new fields read back.
@Suite("Wire of the v1.1 kinds")
struct KindWireTests {
    private func message(_ frame: String) -> Operation? {
        guard case let .message(m) = decode(frame) else { return nil }
        return m.operation
    }

    private func refused(_ frame: String) -> (RejectCode, String)? {
        guard case let .refused(_, code, text) = decode(frame) else { return nil }
        return (code, text)
    }

    @Test("a drag carries dx and dy (either may be absent: 0), or at as [fx, fy]")
    func drags() {
        let base = #""type":"drag","seq":3,"control":"pad","phase":"move""#
        #expect(message("{\(base),\"dx\":0.1,\"dy\":-0.2}") == .drag(control: "pad", thumb: nil, phase: .move, pointer: .dx(0.1, dy: -0.2)))
        #expect(message("{\(base),\"dy\":0.5}") == .drag(control: "pad", thumb: nil, phase: .move, pointer: .dx(0, dy: 0.5)))
        #expect(message("{\(base),\"dx\":0.5}") == .drag(control: "pad", thumb: nil, phase: .move, pointer: .dx(0.5)))
        #expect(message("{\(base),\"at\":[0.25,1]}") == .drag(control: "pad", thumb: nil, phase: .move, pointer: .at(0.25, y: 1)))
        #expect(message("{\(base),\"at\":0.25}") == .drag(control: "pad", thumb: nil, phase: .move, pointer: .at(0.25)))
    }

    @Test("bad pointers: dy with at is bad_message, as is dy on a cancel; a non-number dy or a malformed at pair is bad_value")
    func badPointers() {
        let base = #""type":"drag","seq":3,"control":"pad""#
        #expect(refused("{\(base),\"phase\":\"move\",\"dy\":0.1,\"at\":[0,0]}")?.0 == .badMessage)
        #expect(refused("{\(base),\"phase\":\"cancel\",\"dy\":0.1}")?.0 == .badMessage)
        #expect(refused("{\(base),\"phase\":\"move\",\"dy\":\"up\"}")?.1 == "dy must be a number, not string")
        #expect(refused("{\(base),\"phase\":\"move\",\"dy\":null}")?.0 == .badValue)
        for at in ["[1]", "[1,2,3]", "[\"a\",1]", "[1,null]"] {
            #expect(refused("{\(base),\"phase\":\"move\",\"at\":\(at)}")?.1 == "at must be a number or [fx, fy]", "\(at)")
        }
        #expect(refused("{\(base),\"phase\":\"move\",\"at\":{}}")?.1 == "at must be a number, not object")
    }

    @Test("a step's by may be [nx, ny]; other lists are bad_value")
    func steps() {
        let base = #""type":"step","seq":4,"control":"pad""#
        #expect(message("{\(base),\"by\":[1,-2]}") == .step(control: "pad", thumb: nil, by: 1, byY: -2))
        #expect(message("{\(base),\"by\":1}") == .step(control: "pad", thumb: nil, by: 1))
        #expect(refused("{\(base),\"by\":[1]}")?.1 == "by must be a number, not array")
        #expect(refused("{\(base),\"by\":[1,\"2\"]}")?.1 == "by must be a number or [nx, ny]")
        #expect(refused("{\(base),\"by\":true}")?.1 == "by must be a number, not boolean")
    }

    @Test("the new states are written as {on}, {x, y} and {presses}, and read back by StateDecoder's shapes")
    func states() {
        #expect(text(OutboundEncoder.state(.toggle(on: true))) == #"{"on":true}"#)
        #expect(text(OutboundEncoder.state(.toggle(on: false))) == #"{"on":false}"#)
        #expect(text(OutboundEncoder.state(.xy(x: 0.25, y: 632))) == #"{"x":0.25,"y":632}"#)
        #expect(text(OutboundEncoder.state(.button(presses: 12))) == #"{"presses":12}"#)
    }

    static let synth = #"""
    {"id":"synth","title":"Synth","controls":[
      {"id":"cutoff","type":"slider","label":"Cutoff","min":20,"max":20000,"scale":"log","unit":"Hz","group":"Filter","description":"Low-pass cutoff","state":{"value":440}},
      {"id":"res","type":"slider","label":"Resonance","min":0,"max":1,"digits":2,"group":"Filter"},
      {"id":"wave","type":"snap","label":"Waveform","values":[0,1,2,3],"labels":["sine","square","saw","triangle"]},
      {"id":"on","type":"toggle","label":"Filter on","state":{"on":true}},
      {"id":"pad","type":"xy","label":"Pad","x":{"min":0,"max":1,"step":0.01,"label":"Mix"},"y":{"min":20,"max":20000,"scale":"log","digits":2,"unit":"Hz"},"state":{"x":0.5,"y":200}},
      {"id":"hit","type":"button","label":"Trigger"},
      {"id":"out","type":"gauge","label":"Output","min":-60,"max":0,"unit":"dB"}
    ]}
    """#

    @Test("a room file with every new field validates, and the welcome describes it with the same fields")
    func welcomeFields() throws {
        let schema = try RoomSchema(validating: SchemaDecoder.room(Array(Self.synth.utf8)))
        let controls = Room(schema: schema).snapshot.controls.map { text(OutboundEncoder.control($0)) }
        #expect(controls == [
            #"{"id":"cutoff","type":"slider","label":"Cutoff","commit":"release","group":"Filter","description":"Low-pass cutoff","min":20,"max":20000,"scale":"log","digits":3,"unit":"Hz","state":{"value":440},"rev":0}"#,
            #"{"id":"res","type":"slider","label":"Resonance","commit":"release","group":"Filter","min":0,"max":1,"digits":2,"state":{"value":0},"rev":0}"#,
            #"{"id":"wave","type":"snap","label":"Waveform","commit":"release","values":[0,1,2,3],"layout":"ordinal","unit":"","labels":["sine","square","saw","triangle"],"state":{"index":0,"value":0},"rev":0}"#,
            #"{"id":"on","type":"toggle","label":"Filter on","commit":"release","state":{"on":true},"rev":0}"#,
            #"{"id":"pad","type":"xy","label":"Pad","commit":"release","x":{"min":0,"max":1,"step":0.01,"label":"Mix"},"y":{"min":20,"max":20000,"scale":"log","digits":2,"unit":"Hz"},"state":{"x":0.5,"y":200},"rev":0}"#,
            #"{"id":"hit","type":"button","label":"Trigger","commit":"release","state":{"presses":0},"rev":0}"#,
            #"{"id":"out","type":"gauge","label":"Output","commit":"release","min":-60,"max":0,"unit":"dB","state":{"value":-60,"fraction":0},"rev":0}"#,
        ])
        // A welcome's controls are a room file again.
        let again = "{\"id\":\"synth\",\"title\":\"Synth\",\"controls\":[" + controls.joined(separator: ",") + "]}"
        #expect(try RoomSchema(validating: SchemaDecoder.room(Array(again.utf8))) == schema)
    }

    @Test("the new fields' JSON types are checked, naming the field")
    func wrongTypes() {
        func error(_ control: String) -> SchemaError? {
            do {
                _ = try SchemaDecoder.room(Array("{\"id\":\"r\",\"controls\":[\(control)]}".utf8))
                return nil
            } catch {
                return error
            }
        }
        let cases: [(String, String, String)] = [
            (#"{"id":"s","type":"slider","digits":"3"}"#, "digits", "a number"),
            (#"{"id":"s","type":"snap","labels":"a"}"#, "labels", "a list of strings"),
            (#"{"id":"s","type":"snap","labels":["a",1]}"#, "labels", "a list of strings"),
            (#"{"id":"s","type":"toggle","group":1}"#, "group", "a string"),
            (#"{"id":"s","type":"toggle","description":[]}"#, "description", "a string"),
            (#"{"id":"s","type":"toggle","state":{"on":1}}"#, "state.on", "true or false"),
            (#"{"id":"s","type":"xy","x":[0,1]}"#, "x", "an object"),
            (#"{"id":"s","type":"xy","y":{"min":"0"}}"#, "y.min", "a number"),
            (#"{"id":"s","type":"xy","x":{"scale":["log"]}}"#, "x.scale", "a string"),
            (#"{"id":"s","type":"button","state":{"presses":"1"}}"#, "state.presses", "a number"),
            (#"{"id":"s","type":"slider","scale":true}"#, "scale", "[lo, hi]"),
        ]
        for (control, field, expected) in cases {
            #expect(error(control) == SchemaError(control: "s", field: field, problem: .wrongType(expected: expected)), "\(control)")
        }
        #expect(error(#"{"id":"s","type":"xy","x":{"min":0,"max":1,"stp":1}}"#) == SchemaError(control: "s", field: "x.stp", problem: .unknownField))
    }

    @Test("a range's scale as a string is refused by the validator as [lo, hi]")
    func rangeScaleString() throws {
        let definition = try SchemaDecoder.room(Array(#"{"id":"r","controls":[{"id":"s","type":"range","scale":"0-9"}]}"#.utf8))
        #expect(throws: SchemaError(control: "s", field: "scale", problem: .wrongType(expected: "[lo, hi]"))) {
            try RoomSchema(validating: definition)
        }
    }

    @Test("decoded xy, toggle and button messages apply to a room")
    func decodedMessagesApply() throws {
        let schema = try RoomSchema(validating: SchemaDecoder.room(Array(Self.synth.utf8)))
        var room = Room(schema: schema)
        _ = room.join("c1", name: "Ann", at: .zero)
        let frames = [
            #"{"type":"step","seq":1,"control":"on","by":1}"#,
            #"{"type":"set","seq":2,"control":"pad","value":{"x":0.25}}"#,
            #"{"type":"step","seq":3,"control":"pad","by":[1,0]}"#,
            #"{"type":"set","seq":4,"control":"hit","value":true}"#,
            #"{"type":"drag","seq":5,"control":"pad","thumb":"xy","phase":"begin","at":[0,1]}"#,
            #"{"type":"drag","seq":6,"control":"pad","thumb":"xy","phase":"end","dx":0.5,"dy":-1}"#,
        ]
        for frame in frames {
            guard case let .message(m) = MessageDecoder.decode(Array(frame.utf8)) else { Issue.record("refused \(frame)"); continue }
            let rejects = room.apply(m, from: "c1", at: .zero).compactMap { if case let .reject(r) = $0 { r } else { nil } }
            #expect(rejects.isEmpty, "\(frame): \(rejects)")
        }
        #expect(room.committed[3] == .toggle(on: false))
        #expect(room.committed[5] == .button(presses: 1))
        #expect(room.committed[4] == .xy(x: 0.5, y: 20))
    }
}
