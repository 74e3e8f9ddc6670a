import Testing
import TandemCore
import TandemWire

@Suite("Outbound encoding")
struct OutboundEncoderTests {
    @Test("each kind of state is written in its wire shape")
    func states() {
        #expect(text(OutboundEncoder.state(.slider(value: 0.5))) == #"{"value":0.5}"#)
        #expect(text(OutboundEncoder.state(.snap(index: 2, value: 60))) == #"{"index":2,"value":60}"#)
        #expect(text(OutboundEncoder.state(.range(RangeState(lower: 0, upper: 1)))) == #"{"lower":0,"upper":1}"#)
        #expect(text(OutboundEncoder.state(.color(RGB(red: 0.2, green: 0.4, blue: 0.6)))) == ##"{"red":0.2,"green":0.4,"blue":0.6,"hex":"#336699"}"##)
        #expect(text(OutboundEncoder.state(.gauge(value: 67, fraction: 67.0 / 170))) == #"{"value":67,"fraction":0.3941176470588235}"#)
    }

    @Test("a control is written with its schema fields, then state and rev")
    func controls() {
        let room = Room(schema: .demo)
        let controls = room.snapshot.controls.map { text(OutboundEncoder.control($0)) }
        #expect(controls == [
            #"{"id":"size","type":"snap","label":"Circle size","commit":"release","values":[20,40,60,80,100],"layout":"ordinal","unit":"pt","state":{"index":2,"value":60},"rev":0}"#,
            #"{"id":"blanks","type":"range","label":"Blank cells","commit":"release","scale":[0,9],"operable":[0,3],"minGap":1,"state":{"lower":0,"upper":1},"rev":0}"#,
            ##"{"id":"color","type":"color","label":"Colour","commit":"release","step":0.00392156862745098,"state":{"red":0.2,"green":0.4,"blue":0.6,"hex":"#336699"},"rev":0}"##,
            #"{"id":"gain","type":"slider","label":"Gain","commit":"release","min":0,"max":1,"step":0.01,"state":{"value":0.5},"rev":0}"#,
            #"{"id":"bpm","type":"gauge","label":"BPM","commit":"release","min":0,"max":170,"state":{"value":67,"fraction":0.3941176470588235},"rev":0}"#,
        ])
    }

    @Test("a slider or colour without a step leaves step out, and a committed control names who committed it")
    func optionalControlFields() throws {
        let schema = try RoomSchema(validating: RoomDefinition(id: "r", controls: [
            ControlDefinition(id: "s", type: "slider", commit: "live", min: -1, max: 1),
            ControlDefinition(id: "c", type: "color"),
        ]))
        var room = Room(schema: schema)
        _ = room.join("c7", name: "Gus", at: .zero)
        _ = room.apply(ClientMessage(seq: 1, .set(control: "s", thumb: nil, value: .number(0.25))), from: "c7", at: .zero)
        let controls = room.snapshot.controls.map { text(OutboundEncoder.control($0)) }
        #expect(controls == [
            #"{"id":"s","type":"slider","label":"s","commit":"live","min":-1,"max":1,"state":{"value":0.25},"rev":1,"by":"c7"}"#,
            ##"{"id":"c","type":"color","label":"c","commit":"release","state":{"red":0,"green":0,"blue":0,"hex":"#000000"},"rev":0}"##,
        ])
    }

    @Test("the demo room's welcome parses back as JSON with the expected fields and values")
    func welcome() throws {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        let (welcome, _) = room.join("c12", name: "  Bob\u{7} ", at: .zero)
        let json = try JSONParser.parse(OutboundEncoder.welcome(welcome))
        #expect(json.objectValue?.map(\.key) == ["type", "protocol", "client", "role", "room", "title", "rev", "controls", "peers", "gestures", "present"])
        #expect(json["role"] == "editor")
        #expect(json["present"] == 2)
        #expect(json["type"] == "welcome")
        #expect(json["protocol"] == 1)
        #expect(json["client"] == "c12")
        #expect(json["room"] == "demo")
        #expect(json["title"] == "Demo")
        #expect(json["rev"] == 0)
        let controls = try #require(json["controls"]?.arrayValue)
        #expect(controls.map { $0["id"] } == ["size", "blanks", "color", "gain", "bpm"])
        #expect(controls[0]["state"] == ["index": 2, "value": 60])
        #expect(controls[1]["operable"] == [0, 3])
        #expect(controls[2]["state"]?["hex"] == "#336699")
        #expect(controls[3]["step"] == 0.01)
        #expect(controls[4]["state"]?["value"] == 67)
        #expect(json["peers"] == [
            ["client": "c1", "name": "Ann", "color": "#E91E63"],
            ["client": "c12", "name": "Bob", "color": "#2196F3"],
        ])
        #expect(json["gestures"] == [])
    }

    @Test("a welcome shows drags in progress")
    func welcomeWithGestures() throws {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        _ = room.apply(ClientMessage(seq: 1, .drag(control: "blanks", thumb: "upper", phase: .begin, pointer: .at(1))), from: "c1", at: .zero)
        let (welcome, _) = room.join("c2", name: "Bob", at: .zero)
        let json = try JSONParser.parse(OutboundEncoder.welcome(welcome))
        #expect(json["gestures"] == [
            ["control": "blanks", "thumb": "upper", "by": "c1", "phase": "begin", "state": ["lower": 0, "upper": 3]],
        ])
    }

    @Test("the HTTP view of a room is the welcome without type, protocol and client")
    func snapshot() throws {
        let room = Room(schema: .demo)
        let bytes = OutboundEncoder.welcome(room.snapshot)
        #expect(text(bytes).hasPrefix(#"{"room":"demo","title":"Demo","rev":0,"controls":[{"id":"size""#))
        #expect(text(bytes).hasSuffix(#"],"peers":[],"gestures":[],"present":0}"#))
        let json = try JSONParser.parse(bytes)
        #expect(json["type"] == nil && json["protocol"] == nil && json["client"] == nil)
    }

    @Test("a reject names the holder only when there is one, and an unknown seq as null")
    func rejects() {
        let busy = Reject(to: "c1", seq: 19, code: .busy, message: "upper is held by c3", holder: "c3")
        #expect(text(OutboundEncoder.reject(busy)) == #"{"type":"reject","seq":19,"code":"busy","message":"upper is held by c3","holder":"c3"}"#)
        let bad = Reject(to: "c1", seq: 20, code: .unknownControl, message: "no control \"x\"")
        #expect(text(OutboundEncoder.reject(bad)) == #"{"type":"reject","seq":20,"code":"unknown_control","message":"no control \"x\""}"#)
        let unread = Reject(to: "c1", seq: 0, code: .badMessage, message: "not JSON: unexpected end of input at byte 0")
        #expect(text(OutboundEncoder.reject(unread)) == #"{"type":"reject","seq":null,"code":"bad_message","message":"not JSON: unexpected end of input at byte 0"}"#)
    }

    @Test("an update carries changes, gestures, joined and left, and leaves out what is empty")
    func updates() throws {
        var room = Room(schema: .demo)
        for (client, name) in [("c1", "Ann"), ("c2", "Bob"), ("c4", "Dee")] {
            _ = room.join(ClientID(client), name: name, at: .zero)
        }
        while room.nextFrame(for: "c2") != nil {}
        _ = room.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.25))), from: "c1", at: .zero)
        _ = room.apply(ClientMessage(seq: 2, .drag(control: "blanks", thumb: "upper", phase: .begin, pointer: nil)), from: "c1", at: .zero)
        _ = room.join("c3", name: "Cat", at: .zero)
        _ = room.leave("c4", at: .zero)
        var encoder = UpdateEncoder()
        let fullFrame = room.nextFrame(for: "c2")
        let full = try #require(fullFrame)
        #expect(text(encoder.encode(full)) == #"{"type":"update","rev":1,"ack":0,"#
            + #""changes":[{"control":"gain","state":{"value":0.25},"rev":1,"by":"c1"}],"#
            + #""gestures":[{"control":"blanks","thumb":"upper","by":"c1","phase":"begin","state":{"lower":0,"upper":1}}],"#
            + ##""joined":[{"client":"c3","name":"Cat","color":"#FF9800"}],"left":["c4"]}"##)
        // A step that changes nothing still moves the sender's ack: a frame with nothing else.
        _ = room.apply(ClientMessage(seq: 1, .step(control: "size", thumb: nil, by: 0)), from: "c2", at: .zero)
        let ackFrame = room.nextFrame(for: "c2")
        let ackOnly = try #require(ackFrame)
        #expect(text(encoder.encode(ackOnly)) == #"{"type":"update","rev":1,"ack":1}"#)
    }

    @Test("a frame that is a reject is encoded as a reject")
    func rejectFrames() throws {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        while room.nextFrame(for: "c1") != nil {}
        _ = room.apply(ClientMessage(seq: 5, .step(control: "bpm", thumb: nil, by: 1)), from: "c1", at: .zero)
        var encoder = UpdateEncoder()
        let next = room.nextFrame(for: "c1")
        let frame = try #require(next)
        let json = try JSONParser.parse(encoder.encode(frame))
        #expect(json["type"] == "reject")
        #expect(json["seq"] == 5)
        #expect(json["code"] == "read_only")
    }
}
