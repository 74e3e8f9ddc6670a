import Testing
import TandemCore
import TandemWire

/// The demo room as a server's welcome shows it, built as text so that the
/// tests read the wire, not the server's own encoder.
let demoWelcome = """
{"type":"welcome","protocol":1,"client":"c1","room":"demo","title":"Demo","rev":3,"controls":[\
{"id":"size","type":"snap","label":"Circle size","commit":"release","values":[20,40,60,80,100],"layout":"ordinal","unit":"pt","state":{"index":2,"value":60},"rev":0},\
{"id":"blanks","type":"range","label":"Blank cells","commit":"release","scale":[0,9],"operable":[0,3],"minGap":1,"state":{"lower":0,"upper":1},"rev":0},\
{"id":"color","type":"color","label":"Colour","commit":"release","step":\(1.0 / 255),"state":{"red":0.2,"green":0.4,"blue":0.6,"hex":"#336699"},"rev":0},\
{"id":"gain","type":"slider","label":"Gain","commit":"release","min":0,"max":1,"step":0.01,"state":{"value":0.5},"rev":2,"by":"c3"},\
{"id":"bpm","type":"gauge","label":"BPM","commit":"release","min":0,"max":170,"state":{"value":67,"fraction":\(67.0 / 170)},"rev":3}],\
"peers":[{"client":"c1","name":"Guest","color":"#E91E63"}],"gestures":[]}
"""

func parse(_ text: String) throws -> JSON {
    try JSONParser.parse(Array(text.utf8))
}

func update(changes: String = "", gestures: String = "") throws -> JSON {
    try parse("{\"type\":\"update\",\"rev\":9,\"ack\":1,\"changes\":[\(changes)],\"gestures\":[\(gestures)]}")
}

@Suite("Reading wire states into ControlState")
struct StateDecoderTests {
    let demo = RoomSchema.demo

    func kind(_ id: String) -> ControlKind { demo.controls[demo.index(of: id)!].kind }

    @Test("each kind's state decodes as sent, a colour keeping its hex and a gauge its fraction")
    func decodesEachKind() throws {
        #expect(try StateDecoder.decode(parse(#"{"value":0.25}"#), as: kind("gain")).state == .slider(value: 0.25))
        #expect(try StateDecoder.decode(parse(#"{"index":1,"value":40}"#), as: kind("size")).state == .snap(index: 1, value: 40))
        #expect(try StateDecoder.decode(parse(#"{"lower":1,"upper":3}"#), as: kind("blanks")).state == .range(RangeState(lower: 1, upper: 3)))
        let colour = try StateDecoder.decode(parse(##"{"red":1,"green":0,"blue":0.2,"hex":"#ff0033"}"##), as: kind("color"))
        #expect(colour.state == .color(RGB(red: 1, green: 0, blue: 0.2)) && colour.hex == "#ff0033")
        // The fraction is not recomputed: a wrong one must reach the validator.
        #expect(try StateDecoder.decode(parse(#"{"value":85,"fraction":0.9}"#), as: kind("bpm")).state == .gauge(value: 85, fraction: 0.9))
    }

    @Test("wrong shapes are refused with the reason")
    func refusesWrongShapes() throws {
        let cases: [(String, String, String)] = [
            ("gain", #"{"value":"0.5"}"#, "not a number"),
            ("gain", #"{"value":0.5,"fraction":0.5}"#, "unexpected key"),
            ("gain", #"[0.5]"#, "not an object"),
            ("size", #"{"index":1.5,"value":40}"#, "not a whole number"),
            ("size", #"{"value":40}"#, "missing \"index\""),
            ("blanks", #"{"lower":0}"#, "missing \"upper\""),
            ("color", #"{"red":1,"green":0,"blue":0}"#, "missing \"hex\""),
            ("color", #"{"red":1,"green":0,"blue":0,"hex":7}"#, "not a string"),
            ("bpm", #"{"value":85}"#, "missing \"fraction\""),
        ]
        for (id, text, reason) in cases {
            #expect {
                _ = try StateDecoder.decode(parse(text), as: kind(id))
            } throws: { error in
                (error as? StateDecodeError)?.reason.contains(reason) == true
            }
        }
    }
}

@Suite("The state validator")
struct StateValidatorTests {
    let validator: StateValidator

    init() throws {
        validator = try StateValidator(welcome: Array(demoWelcome.utf8))
    }

    @Test("the schema comes from the welcome through SchemaDecoder and RoomSchema(validating:)")
    func schemaFromWelcome() throws {
        #expect(validator.schema.controls.map(\.id) == ["size", "blanks", "color", "gain", "bpm"])
        #expect(validator.schema.controls == RoomSchema.demo.controls)
        let (view, violations) = validator.view(fromWelcome: try parse(demoWelcome))
        #expect(violations.isEmpty)
        #expect(view.states == RoomSchema.demo.controls.map(\.initial))
        #expect(view.revisions == [0, 0, 0, 2, 3])
    }

    @Test("legal states in changes and gestures pass")
    func legalStatesPass() throws {
        let frame = try update(
            changes: #"""
            {"control":"size","state":{"index":4,"value":100},"rev":4,"by":"c2"},
            {"control":"blanks","state":{"lower":2,"upper":3},"rev":5},
            {"control":"color","state":{"red":1,"green":0.4,"blue":0,"hex":"#FF6600"},"rev":6},
            {"control":"gain","state":{"value":0.73},"rev":7},
            {"control":"bpm","state":{"value":200,"fraction":1},"rev":8}
            """#,
            gestures: #"""
            {"control":"blanks","thumb":"upper","by":"c3","phase":"move","state":{"lower":0,"upper":3}},
            {"control":"gain","thumb":"value","by":"c3","phase":"end","state":{"value":0.1}}
            """#)
        #expect(validator.violations(inUpdate: frame).isEmpty)
        // Empty arrays may be left out.
        #expect(validator.violations(inUpdate: try parse(#"{"type":"update","rev":9,"ack":3}"#)).isEmpty)
    }

    @Test("each kind of illegal state is caught, naming the control and why")
    func illegalStatesAreCaught() throws {
        let cases: [(String, String, String)] = [
            (#"{"control":"gain","state":{"value":0.505},"rev":4}"#, "gain", "off the step grid"),
            (#"{"control":"gain","state":{"value":1.5},"rev":4}"#, "gain", "outside [0, 1]"),
            (#"{"control":"size","state":{"index":2,"value":40},"rev":4}"#, "size", "not values[2] = 60"),
            (#"{"control":"size","state":{"index":5,"value":40},"rev":4}"#, "size", "index outside 0...4"),
            (#"{"control":"blanks","state":{"lower":2,"upper":2},"rev":4}"#, "blanks", "below minGap 1"),
            (#"{"control":"blanks","state":{"lower":2,"upper":5},"rev":4}"#, "blanks", "outside operable [0, 3]"),
            (##"{"control":"color","state":{"red":0.2,"green":0.4,"blue":0.6,"hex":"#336698"},"rev":4}"##, "color", "hex #336698 does not match the channels (#336699)"),
            (##"{"control":"color","state":{"red":0.5,"green":0.4,"blue":0.6,"hex":"#806699"},"rev":4}"##, "color", "off the step grid"),
            (#"{"control":"bpm","state":{"value":85,"fraction":0.4},"rev":4}"#, "bpm", "fraction is not 0.5"),
            (#"{"control":"nope","state":{"value":1},"rev":4}"#, "nope", "unknown control"),
            (#"{"control":"gain","state":{"value":0.5}}"#, "gain", "without a whole-number rev"),
        ]
        for (change, control, reason) in cases {
            let violations = validator.violations(inUpdate: try update(changes: change))
            #expect(violations.count == 1, "\(change)")
            #expect(violations.first?.control == control, "\(change)")
            #expect(violations.first?.reason.contains(reason) == true, "\(change): \(violations)")
        }
    }

    @Test("illegal previews in gestures are caught too, as are gestures on missing thumbs")
    func illegalGestures() throws {
        let frame = try update(gestures: #"""
            {"control":"blanks","thumb":"lower","by":"c3","phase":"move","state":{"lower":1,"upper":1}},
            {"control":"gain","thumb":"red","by":"c3","phase":"move","state":{"value":0.5}},
            {"control":"size","thumb":"index","by":"c3","phase":"wiggle","state":{"index":0,"value":20}}
            """#)
        let violations = validator.violations(inUpdate: frame)
        #expect(violations.map(\.control) == ["blanks", "gain", "size"])
        #expect(violations[0].reason.contains("minGap"))
        #expect(violations[1].reason.contains("thumb"))
        #expect(violations[2].reason.contains("phase"))
    }

    @Test("a client's merged view that equals the server's snapshot reports nothing")
    func viewMatchesSnapshot() throws {
        var (view, _) = validator.view(fromWelcome: try parse(demoWelcome))
        let frames = [
            try update(changes: #"{"control":"gain","state":{"value":0.7},"rev":4,"by":"c2"}"#,
                       gestures: #"{"control":"gain","thumb":"value","by":"c2","phase":"move","state":{"value":0.9}}"#),
            try update(changes: #"{"control":"blanks","state":{"lower":1,"upper":3},"rev":5}"#),
        ]
        for frame in frames { #expect(validator.apply(update: frame, to: &view).isEmpty) }
        // A preview does not enter the committed view.
        #expect(view.states[3] == .slider(value: 0.7))
        let snapshot = demoWelcome
            .replacing(#""state":{"value":0.5},"rev":2"#, with: #""state":{"value":0.7},"rev":4"#)
            .replacing(#""state":{"lower":0,"upper":1},"rev":0"#, with: #""state":{"lower":1,"upper":3},"rev":5"#)
        #expect(validator.compare(view, withSnapshot: try parse(snapshot)).isEmpty)
    }

    @Test("a view that differs from the API snapshot is reported per control")
    func viewDiffersFromSnapshot() throws {
        let (view, _) = validator.view(fromWelcome: try parse(demoWelcome))
        // The server committed gain = 0.7 at rev 4; the client never heard.
        let snapshot = demoWelcome.replacing(#""state":{"value":0.5},"rev":2"#, with: #""state":{"value":0.7},"rev":4"#)
        let violations = validator.compare(view, withSnapshot: try parse(snapshot))
        #expect(violations.map(\.control) == ["gain", "gain"])
        #expect(violations[0].reason == #"client has {"value":0.5}, server has {"value":0.7}"#)
        #expect(violations[1].reason == "client at revision 2, server at 4")
        // A control missing from the snapshot is reported too.
        let short = try parse(#"{"id":"demo","controls":[]}"#)
        #expect(validator.compare(view, withSnapshot: short).count == 5)
    }

    @Test("a change whose revision goes backwards is reported and not applied")
    func revisionsGoForward() throws {
        var (view, _) = validator.view(fromWelcome: try parse(demoWelcome))
        let stale = try update(changes: #"{"control":"gain","state":{"value":0.2},"rev":1}"#)
        let violations = validator.apply(update: stale, to: &view)
        #expect(violations == [Violation(control: "gain", reason: "revision went back from 2 to 1")])
        #expect(view.states[3] == .slider(value: 0.5))
    }

    @Test("an illegal state in a welcome is reported")
    func illegalWelcome() throws {
        let bad = demoWelcome.replacing(##""hex":"#336699""##, with: ##""hex":"#000000""##)
        let (_, violations) = validator.view(fromWelcome: try parse(bad))
        #expect(violations.map(\.control) == ["color"])
    }
}
