import Testing
import TandemCore
import TandemWire

/// The `preset` message (client to server) and the `presets` list, the HTTP
/// API's bodies (server to client): docs/presets.md.
@Suite("Preset messages")
struct PresetMessageTests {
    static let warm = Preset(name: "Warm", entries: [
        .init(control: "size", state: .snap(index: 4, value: 100)),
        .init(control: "gain", state: .slider(value: 0.8)),
    ], client: "c3", by: "Ann \"A\"", time: 1_700_000_000_123)

    @Test("each action decodes with its name (and rename with to), other keys ignored")
    func decodesActions() {
        #expect(decode(#"{"type":"preset","seq":1,"action":"save","name":"Warm"}"#) == .preset(seq: 1, .save(name: "Warm")))
        #expect(decode(#"{"type":"preset","seq":2,"action":"recall","name":"Warm","x":[1]}"#) == .preset(seq: 2, .recall(name: "Warm")))
        #expect(decode(#"{"type":"preset","seq":3,"action":"rename","name":"Warm","to":"Warmer"}"#)
            == .preset(seq: 3, .rename(name: "Warm", to: "Warmer")))
        #expect(decode(#"{"type":"preset","seq":4,"action":"delete","name":"Warm","to":7}"#) == .preset(seq: 4, .delete(name: "Warm")))
    }

    @Test("names are trimmed; case and inner spaces are kept; 60 characters (an emoji is one) pass")
    func namesAreTrimmed() {
        #expect(decode(#"{"type":"preset","seq":1,"action":"save","name":"  Warm pad\t"}"#) == .preset(seq: 1, .save(name: "Warm pad")))
        #expect(decode(#"{"type":"preset","seq":1,"action":"save","name":"wARM"}"#) == .preset(seq: 1, .save(name: "wARM")))
        let sixty = String(repeating: "é", count: 59) + "🎹"
        #expect(decode(#"{"type":"preset","seq":1,"action":"save","name":"\#(sixty)"}"#) == .preset(seq: 1, .save(name: sixty)))
        #expect(decode(#"{"type":"preset","seq":1,"action":"rename","name":"a","to":"  b "}"#) == .preset(seq: 1, .rename(name: "a", to: "b")))
    }

    @Test("a preset without a usable seq is bad_message without seq", arguments: [
        #"{"type":"preset","action":"save","name":"Warm"}"#,
        #"{"type":"preset","seq":0,"action":"save","name":"Warm"}"#,
        #"{"type":"preset","seq":1.5,"action":"save","name":"Warm"}"#,
        #"{"type":"preset","seq":"1","action":"save","name":"Warm"}"#,
    ])
    func needsSeq(frame: String) {
        #expect(decode(frame) == .refused(seq: nil, code: .badMessage, message: "seq must be a whole number from 1 to 2^53"))
    }

    @Test("an action that is missing, not a string or unknown is bad_message with its seq", arguments: [
        #"{"type":"preset","seq":5,"name":"Warm"}"#,
        #"{"type":"preset","seq":5,"action":1,"name":"Warm"}"#,
        #"{"type":"preset","seq":5,"action":"Save","name":"Warm"}"#,
        #"{"type":"preset","seq":5,"action":"list","name":"Warm"}"#,
    ])
    func badAction(frame: String) {
        #expect(decode(frame) == .refused(seq: 5, code: .badMessage, message: "action must be \"save\", \"recall\", \"rename\" or \"delete\""))
    }

    @Test("a missing name, or a rename without to, is bad_message; a name that is not a string is bad_value")
    func missingOrWrongType() {
        #expect(decode(#"{"type":"preset","seq":5,"action":"save"}"#) == .refused(seq: 5, code: .badMessage, message: "preset save needs a name"))
        #expect(decode(#"{"type":"preset","seq":5,"action":"rename","name":"a"}"#)
            == .refused(seq: 5, code: .badMessage, message: "preset rename needs to (the new name)"))
        #expect(decode(#"{"type":"preset","seq":5,"action":"recall","name":7}"#) == .refused(seq: 5, code: .badValue, message: "name must be a string, not number"))
        #expect(decode(#"{"type":"preset","seq":5,"action":"delete","name":null}"#) == .refused(seq: 5, code: .badValue, message: "name must be a string, not null"))
        #expect(decode(#"{"type":"preset","seq":5,"action":"rename","name":"a","to":["b"]}"#) == .refused(seq: 5, code: .badValue, message: "to must be a string, not array"))
    }

    @Test("empty, blank, too long, control characters, line breaks and slashes are bad_value naming the field", arguments: [
        ("", "name must not be empty"),
        ("   \t ", "name must not be empty"),
        (String(repeating: "x", count: 61), "name must be at most 60 characters (it has 61)"),
        ("a\u{7}b", "name must not contain control characters or line breaks"),
        ("a\nb", "name must not contain control characters or line breaks"),
        ("a\u{2028}b", "name must not contain control characters or line breaks"),
        ("Lead/Pad", "name must not contain / (a preset is named in URL paths)"),
        ("..", "name must not be . or .. (a preset is named in URL paths)"),
        (" . ", "name must not be . or .. (a preset is named in URL paths)"),
    ])
    func badNames(name: String, message: String) throws {
        let frame = JSON.object([JSONMember("type", "preset"), JSONMember("seq", 9), JSONMember("action", "save"), JSONMember("name", .string(name))])
        #expect(MessageDecoder.decode(frame.bytes) == .refused(seq: 9, code: .badValue, message: message))
        let rename = JSON.object([JSONMember("type", "preset"), JSONMember("seq", 9), JSONMember("action", "rename"),
                                  JSONMember("name", "ok"), JSONMember("to", .string(name))])
        #expect(MessageDecoder.decode(rename.bytes) == .refused(seq: 9, code: .badValue, message: message.replacingOccurrences(of: "name", with: "to", options: [], range: message.range(of: "name"))))
    }

    @Test("the presets frame lists every preset sorted by name, states in the preset's order, by and time")
    func presetsFrame() throws {
        var cold = Self.warm
        cold.name = "Cold"
        cold.by = "Ben"
        let bytes = PresetMessages.frame([Self.warm, cold])
        let json = try JSONParser.parse(bytes)
        #expect(json["type"] == "presets")
        let list = try #require(json["presets"]?.arrayValue)
        #expect(list.map { $0["name"]?.stringValue } == ["Cold", "Warm"])
        #expect(text(bytes).contains(#"{"name":"Warm","states":{"size":{"index":4,"value":100},"gain":{"value":0.8}},"by":"Ann \"A\"","time":1700000000123}"#))
        #expect(text(PresetMessages.frame([])) == #"{"type":"presets","presets":[]}"#)
        #expect(text(PresetMessages.list([Self.warm])) == #"{"presets":["# + text(PresetMessages.preset(Self.warm)) + "]}")
    }

    @Test("the diff body lists each change with the preset's state and the current one")
    func diffBody() {
        let bytes = PresetMessages.diff(name: "Warm", changes: [PresetChange(control: "gain", preset: .slider(value: 0.8), now: .slider(value: 0.5))])
        #expect(text(bytes) == #"{"name":"Warm","changes":[{"control":"gain","preset":{"value":0.8},"now":{"value":0.5}}]}"#)
        #expect(text(PresetMessages.diff(name: "Warm", changes: [])) == #"{"name":"Warm","changes":[]}"#)
    }

    @Test("a preset holds every control that takes batches, at its committed state, in the room's order; gauges are left out")
    func entriesOfARoom() {
        let room = Room(schema: .demo)
        let entries = Preset.entries(of: room)
        #expect(entries.map(\.control) == ["size", "blanks", "color", "gain"])
        #expect(entries.first?.state == .snap(index: 2, value: 60))
    }

    @Test("changes(in:) is what a recall would commit: differing, fitting, settable controls only")
    func changesInRoom() {
        let room = Room(schema: .demo)
        let preset = Preset(name: "p", entries: [
            .init(control: "gain", state: .slider(value: 0.5)),       // equal: no change
            .init(control: "size", state: .snap(index: 0, value: 20)), // a change
            .init(control: "blanks", state: .slider(value: 3)),       // another kind's state
            .init(control: "bpm", state: .gauge(value: 1, fraction: 1.0 / 170)), // a gauge
            .init(control: "gone", state: .slider(value: 1)),         // no such control
        ], client: "c1", by: "Ann", time: 0)
        #expect(preset.changes(in: room) == [PresetChange(control: "size", preset: .snap(index: 0, value: 20), now: .snap(index: 2, value: 60))])
    }
}
