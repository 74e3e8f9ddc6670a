import Testing
import TandemCore
import TandemWire

@Suite("Message decoding")
struct MessageDecoderTests {
    @Test("every example client message of the protocol decodes to the expected ClientMessage")
    func protocolExamples() {
        let examples: [(String, ClientMessage)] = [
            (#"{"type":"drag","seq":1,"control":"blanks","thumb":"upper","phase":"begin"}"#,
             ClientMessage(seq: 1, .drag(control: "blanks", thumb: "upper", phase: .begin, pointer: nil))),
            (#"{"type":"drag","seq":2,"control":"blanks","thumb":"upper","phase":"move","dx":0.25}"#,
             ClientMessage(seq: 2, .drag(control: "blanks", thumb: "upper", phase: .move, pointer: .dx(0.25)))),
            (#"{"type":"drag","seq":3,"control":"blanks","thumb":"upper","phase":"end"}"#,
             ClientMessage(seq: 3, .drag(control: "blanks", thumb: "upper", phase: .end, pointer: nil))),
            (#"{"type":"drag","seq":4,"control":"size","thumb":"index","phase":"begin","at":0.8}"#,
             ClientMessage(seq: 4, .drag(control: "size", thumb: "index", phase: .begin, pointer: .at(0.8)))),
            (#"{"type":"drag","seq":5,"control":"size","thumb":"index","phase":"cancel"}"#,
             ClientMessage(seq: 5, .drag(control: "size", thumb: "index", phase: .cancel, pointer: nil))),
            (#"{"type":"set","seq":6,"control":"color","thumb":"red","value":0.5}"#,
             ClientMessage(seq: 6, .set(control: "color", thumb: "red", value: .number(0.5)))),
            (##"{"type":"set","seq":7,"control":"color","value":"#FF8800"}"##,
             ClientMessage(seq: 7, .set(control: "color", thumb: nil, value: .text("#FF8800")))),
            (#"{"type":"step","seq":8,"control":"size","by":-1}"#,
             ClientMessage(seq: 8, .step(control: "size", thumb: nil, by: -1))),
        ]
        for (frame, expected) in examples {
            #expect(decode(frame) == .message(expected), "\(frame)")
        }
    }

    @Test("a frame that is not JSON is bad_message, saying why and where, with no seq")
    func notJSON() {
        guard case let .refused(seq, code, message) = decode(#"{"type":"drag","seq":1,}"#) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(seq == nil)
        #expect(code == .badMessage)
        #expect(message == "not JSON: unexpected '}', expected a string key at byte 23")
        #expect(decode("") == .refused(seq: nil, code: .badMessage, message: "not JSON: unexpected end of input, expected a value at byte 0"))
    }

    @Test("a JSON value that is not an object is bad_message", arguments: ["[]", "1", "\"drag\"", "null", "true"])
    func notAnObject(frame: String) {
        #expect(decode(frame) == .refused(seq: nil, code: .badMessage, message: "expected a JSON object"))
    }

    @Test("type must be drag, set or step",
          arguments: [#""type":"hello","#, #""type":"DRAG","#, #""type":1,"#, #""type":null,"#, ""])
    func badType(typeMember: String) {
        let frame = "{\(typeMember)\"seq\":3,\"control\":\"size\",\"by\":1}"
        #expect(refusal(frame) == Refusal(3, .badMessage))
    }

    @Test("seq must be a whole number from 1 to 2^53; when it is not, the refusal has no seq",
          arguments: [#""seq":0,"#, #""seq":-1,"#, #""seq":1.5,"#, #""seq":"1","#, #""seq":null,"#, #""seq":true,"#,
                      #""seq":9007199254740994,"#, #""seq":1e300,"#, ""])
    func badSeq(seqMember: String) {
        let frame = "{\"type\":\"step\",\(seqMember)\"control\":\"size\",\"by\":1}"
        #expect(refusal(frame) == Refusal(nil, .badMessage))
    }

    @Test("seq accepts any integral spelling up to 2^53")
    func seqSpellings() {
        #expect(seqOf(#"{"type":"step","seq":1.0,"control":"size","by":1}"#) == 1)
        #expect(seqOf(#"{"type":"step","seq":2e3,"control":"size","by":1}"#) == 2000)
        #expect(seqOf(#"{"type":"step","seq":9007199254740992,"control":"size","by":1}"#) == 9_007_199_254_740_992)
    }

    @Test("control must be a string", arguments: [#""control":1,"#, #""control":null,"#, #""control":["size"],"#, ""])
    func badControl(controlMember: String) {
        let frame = "{\"type\":\"step\",\"seq\":4,\(controlMember)\"by\":1}"
        #expect(refusal(frame) == Refusal(4, .badMessage))
    }

    @Test("thumb, when present and not null, must be a string")
    func thumbs() {
        #expect(refusal(#"{"type":"step","seq":5,"control":"size","thumb":1,"by":1}"#) == Refusal(5, .badMessage))
        #expect(refusal(#"{"type":"step","seq":5,"control":"size","thumb":{},"by":1}"#) == Refusal(5, .badMessage))
        #expect(decode(#"{"type":"step","seq":5,"control":"size","thumb":null,"by":1}"#)
            == .message(ClientMessage(seq: 5, .step(control: "size", thumb: nil, by: 1))))
        // Whether the control has the thumb is the room's question, not the wire's.
        #expect(decode(#"{"type":"step","seq":5,"control":"size","thumb":"nope","by":1}"#)
            == .message(ClientMessage(seq: 5, .step(control: "size", thumb: "nope", by: 1))))
    }

    @Test("a drag's phase must be begin, move, end or cancel",
          arguments: [#""phase":"start","#, #""phase":"Begin","#, #""phase":0,"#, #""phase":null,"#, ""])
    func badPhase(phaseMember: String) {
        let frame = "{\"type\":\"drag\",\"seq\":6,\"control\":\"gain\",\(phaseMember)\"dx\":0.1}"
        #expect(refusal(frame) == Refusal(6, .badMessage))
    }

    @Test("dx and at must be numbers (bad_value), not both (bad_message), and not on cancel (bad_message)")
    func pointers() {
        #expect(refusal(#"{"type":"drag","seq":7,"control":"gain","phase":"move","dx":"0.1"}"#) == Refusal(7, .badValue))
        #expect(refusal(#"{"type":"drag","seq":7,"control":"gain","phase":"move","at":true}"#) == Refusal(7, .badValue))
        #expect(refusal(#"{"type":"drag","seq":7,"control":"gain","phase":"move","dx":null}"#) == Refusal(7, .badValue))
        #expect(refusal(#"{"type":"drag","seq":7,"control":"gain","phase":"end","at":[0.5]}"#) == Refusal(7, .badValue))
        #expect(decode(#"{"type":"drag","seq":7,"control":"gain","phase":"move","dx":0.1,"at":0.5}"#)
            == .refused(seq: 7, code: .badMessage, message: "give dx or at, not both"))
        #expect(refusal(#"{"type":"drag","seq":7,"control":"gain","phase":"cancel","dx":0.1}"#) == Refusal(7, .badMessage))
        #expect(refusal(#"{"type":"drag","seq":7,"control":"gain","phase":"cancel","at":0.1}"#) == Refusal(7, .badMessage))
        #expect(decode(#"{"type":"drag","seq":7,"control":"gain","phase":"end","dx":-0.5}"#)
            == .message(ClientMessage(seq: 7, .drag(control: "gain", thumb: nil, phase: .end, pointer: .dx(-0.5)))))
        #expect(decode(#"{"type":"drag","seq":7,"control":"gain","phase":"move"}"#)
            == .message(ClientMessage(seq: 7, .drag(control: "gain", thumb: nil, phase: .move, pointer: nil))))
    }

    @Test("a set needs a value, and carries whatever JSON type it has for the room to judge")
    func setValues() {
        #expect(refusal(#"{"type":"set","seq":8,"control":"gain"}"#) == Refusal(8, .badMessage))
        let cases: [(String, SetValue)] = [
            ("0.5", .number(0.5)), ("-3", .number(-3)), (##""#FF8800""##, .text("#FF8800")), (#""0.5""#, .text("0.5")),
            ("true", .flag(true)), ("false", .flag(false)), ("null", .other("null")),
            ("[1]", .other("array")), (#"{"v":1}"#, .other("object")), (#"{"x":1,"v":1}"#, .other("object")),
            (#"{"x":"1"}"#, .other("object")), (#"{"x":1}"#, .point(x: 1, y: nil)), (#"{"y":-2,"x":0.5}"#, .point(x: 0.5, y: -2)),
            ("{}", .point(x: nil, y: nil)),
        ]
        for (value, expected) in cases {
            #expect(decode(#"{"type":"set","seq":8,"control":"gain","value":\#(value)}"#)
                == .message(ClientMessage(seq: 8, .set(control: "gain", thumb: nil, value: expected))), "\(value)")
        }
    }

    @Test("a step needs by, which must be a number; a fractional by is passed on for the room to refuse")
    func steps() {
        #expect(refusal(#"{"type":"step","seq":9,"control":"size"}"#) == Refusal(9, .badMessage))
        #expect(refusal(#"{"type":"step","seq":9,"control":"size","by":"1"}"#) == Refusal(9, .badValue))
        #expect(refusal(#"{"type":"step","seq":9,"control":"size","by":null}"#) == Refusal(9, .badValue))
        #expect(decode(#"{"type":"step","seq":9,"control":"size","by":0.5}"#)
            == .message(ClientMessage(seq: 9, .step(control: "size", thumb: nil, by: 0.5))))
    }

    @Test("numbers out of double range are a parse error, so bad_message without seq")
    func hugeNumbers() {
        #expect(refusal(#"{"type":"step","seq":9,"control":"size","by":1e999}"#) == Refusal(nil, .badMessage))
        #expect(refusal(#"{"type":"set","seq":9,"control":"gain","value":-1e400}"#) == Refusal(nil, .badMessage))
    }

    @Test("unknown keys are ignored for forward compatibility, and a repeated key counts as its last")
    func unknownAndRepeatedKeys() {
        #expect(decode(#"{"type":"step","seq":10,"control":"size","by":1,"client":"x","extra":{"deep":[1,2]},"v":2}"#)
            == .message(ClientMessage(seq: 10, .step(control: "size", thumb: nil, by: 1))))
        #expect(decode(#"{"type":"step","seq":10,"control":"size","by":1,"by":2,"seq":11}"#)
            == .message(ClientMessage(seq: 11, .step(control: "size", thumb: nil, by: 2))))
    }

    @Test("the write API's body decodes as a set of the named control")
    func setBody() {
        #expect(MessageDecoder.decodeSetBody(Array(#"{"thumb":"red","value":0.5}"#.utf8), control: "color", seq: 3)
            == .message(ClientMessage(seq: 3, .set(control: "color", thumb: "red", value: .number(0.5)))))
        #expect(MessageDecoder.decodeSetBody(Array(##"{"value":"#FF8800"}"##.utf8), control: "color", seq: 4)
            == .message(ClientMessage(seq: 4, .set(control: "color", thumb: nil, value: .text("#FF8800")))))
        #expect(refusal(MessageDecoder.decodeSetBody(Array(#"{"thumb":"red"}"#.utf8), control: "color", seq: 5)) == Refusal(5, .badMessage))
        #expect(refusal(MessageDecoder.decodeSetBody(Array(#"{"thumb":2,"value":1}"#.utf8), control: "color", seq: 5)) == Refusal(5, .badMessage))
        #expect(refusal(MessageDecoder.decodeSetBody(Array("[1]".utf8), control: "color", seq: 5)) == Refusal(5, .badMessage))
        #expect(refusal(MessageDecoder.decodeSetBody(Array("{".utf8), control: "color", seq: 5)) == Refusal(5, .badMessage))
    }

    @Test("decoded messages apply to the demo room as the protocol describes")
    func decodedMessagesApply() {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        let frames = [
            #"{"type":"drag","seq":1,"control":"blanks","thumb":"upper","phase":"begin"}"#,
            #"{"type":"drag","seq":2,"control":"blanks","thumb":"upper","phase":"move","dx":0.25}"#,
            #"{"type":"drag","seq":3,"control":"blanks","thumb":"upper","phase":"end"}"#,
            ##"{"type":"set","seq":4,"control":"color","value":"#FF8800"}"##,
            #"{"type":"step","seq":5,"control":"size","by":-1}"#,
        ]
        for frame in frames {
            guard case let .message(message) = decode(frame) else {
                Issue.record("did not decode: \(frame)")
                continue
            }
            let effects = room.apply(message, from: "c1", at: .zero)
            #expect(!effects.contains { if case .reject = $0 { true } else { false } }, "\(frame)")
        }
        #expect(room.committed[1] == .range(RangeState(lower: 0, upper: 3)))
        #expect(room.committed[2] == .color(RGB(red: 1, green: 136.0 / 255, blue: 0)))
        #expect(room.committed[0] == .snap(index: 1, value: 40))
    }

    // MARK: helpers

    struct Refusal: Equatable, CustomStringConvertible {
        var seq: Int?
        var code: RejectCode
        init(_ seq: Int?, _ code: RejectCode) {
            self.seq = seq
            self.code = code
        }
        var description: String { "\(code.rawValue) seq \(seq.map(String.init) ?? "nil")" }
    }

    /// The seq and code of a refusal (its message is free text); nil for a message.
    func refusal(_ frame: String) -> Refusal? {
        refusal(decode(frame))
    }

    func refusal(_ inbound: Inbound) -> Refusal? {
        guard case let .refused(seq, code, message) = inbound else { return nil }
        #expect(!message.isEmpty)
        return Refusal(seq, code)
    }

    func seqOf(_ frame: String) -> Int? {
        if case let .message(message) = decode(frame) { message.seq } else { nil }
    }
}
