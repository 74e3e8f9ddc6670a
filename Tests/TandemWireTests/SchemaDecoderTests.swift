import Testing
import TandemCore
import TandemWire

@Suite("Schema decoding")
struct SchemaDecoderTests {
    func schemaError(_ text: String) -> SchemaError? {
        do {
            _ = try SchemaDecoder.room(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// A one-control room around `control`, for error cases.
    func roomWith(_ control: String) -> String {
        #"{"id":"r","controls":[{"id":"ok","type":"gauge","min":0,"max":1},"# + control + "]}"
    }

    @Test("the demo room written as JSON decodes and validates to RoomSchema.demo")
    func demoRoom() throws {
        let definition = try SchemaDecoder.room(Array(demoRoomFile.utf8))
        #expect(definition.controls?.count == 5)
        #expect(definition.controls?[2].state?.hex == "#336699")
        #expect(try RoomSchema(validating: definition) == .demo)
    }

    @Test("a welcome body fed back decodes to the same room, its ids, states and extras read or ignored")
    func welcomeRoundTrip() throws {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        _ = room.apply(ClientMessage(seq: 1, .drag(control: "size", thumb: nil, phase: .begin, pointer: nil)), from: "c1", at: .zero)
        let (welcome, _) = room.join("c2", name: "Bob", at: .zero)
        #expect(try RoomSchema(validating: SchemaDecoder.room(OutboundEncoder.welcome(welcome))) == .demo)
        #expect(try RoomSchema(validating: SchemaDecoder.room(OutboundEncoder.welcome(room.snapshot))) == .demo)
    }

    @Test("a fed-back welcome starts each control at its committed state")
    func committedStateBecomesInitial() throws {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        let messages: [Operation] = [
            .set(control: "color", thumb: nil, value: .text("#0A0B0C")),
            .set(control: "gain", thumb: nil, value: .number(0.37)),
            .step(control: "blanks", thumb: "upper", by: 2),
            .set(control: "bpm", thumb: nil, value: .number(120.5)),
            .step(control: "size", thumb: nil, by: -2),
        ]
        for (k, operation) in messages.enumerated() {
            _ = room.apply(ClientMessage(seq: k + 1, operation), from: "c1", at: .zero)
        }
        let schema = try RoomSchema(validating: SchemaDecoder.room(OutboundEncoder.welcome(room.snapshot)))
        #expect(schema.controls.map(\.initial) == room.committed)
        #expect(schema.controls.map(\.kind) == RoomSchema.demo.controls.map(\.kind))
    }

    @Test("a wrong JSON type names the control and the field, and says what was expected",
          arguments: [
              (#"{"id":"s","type":"slider","min":"0","max":1}"#, "s", "min", "a number"),
              (#"{"id":"s","type":"slider","min":0,"max":[1]}"#, "s", "max", "a number"),
              (#"{"id":"s","type":"slider","min":0,"max":1,"step":true}"#, "s", "step", "a number"),
              (#"{"id":"s","type":"snap","values":[1,"2"]}"#, "s", "values", "a list of numbers"),
              (#"{"id":"s","type":"snap","values":3}"#, "s", "values", "a list of numbers"),
              (#"{"id":"s","type":"snap","values":[1],"layout":1}"#, "s", "layout", "a string"),
              (#"{"id":"s","type":"snap","values":[1],"unit":{}}"#, "s", "unit", "a string"),
              (#"{"id":"s","type":"range","scale":{"lo":0}}"#, "s", "scale", "[lo, hi]"),
              (#"{"id":"s","type":"range","scale":[0,9],"operable":[0,[3]]}"#, "s", "operable", "[lo, hi]"),
              (#"{"id":"s","type":"range","scale":[0,9],"minGap":"1"}"#, "s", "minGap", "a number"),
              (#"{"id":"s","type":"range","scale":[0,9],"state":{"upper":"2"}}"#, "s", "state.upper", "a number"),
              (#"{"id":"s","type":"range","scale":[0,9],"state":{"lower":false}}"#, "s", "state.lower", "a number"),
              (#"{"id":"s","type":"color","state":{"hex":336699}}"#, "s", "state.hex", "a string"),
              (#"{"id":"s","type":"color","state":{"red":"1"}}"#, "s", "state.red", "a number"),
              (#"{"id":"s","type":"color","state":{"green":[]}}"#, "s", "state.green", "a number"),
              (#"{"id":"s","type":"color","state":{"blue":{}}}"#, "s", "state.blue", "a number"),
              (#"{"id":"s","type":"snap","values":[1],"state":{"index":"0"}}"#, "s", "state.index", "a number"),
              (#"{"id":"s","type":"gauge","min":0,"max":1,"state":{"value":"0"}}"#, "s", "state.value", "a number"),
              (#"{"id":"s","type":"gauge","min":0,"max":1,"state":[1]}"#, "s", "state", "an object"),
              (#"{"id":"s","type":1}"#, "s", "type", "a string"),
              (#"{"id":"s","type":"gauge","label":2}"#, "s", "label", "a string"),
              (#"{"id":"s","type":"gauge","commit":true}"#, "s", "commit", "a string"),
              (#"{"type":"gauge","min":"0","id":"late"}"#, "late", "min", "a number"),
              (#"{"id":7,"type":"gauge"}"#, "#2", "id", "a string"),
              (#"{"id":"bad id!","type":"gauge","min":"x"}"#, "#2", "min", "a number"),
              (#"{"type":"gauge","max":"x"}"#, "#2", "max", "a number"),
              ("[1]", "#2", "controls", "an object"),
          ] as [(String, String, String, String)])
    func wrongTypes(control: String, name: String, field: String, expected: String) {
        #expect(schemaError(roomWith(control)) == SchemaError(control: name, field: field, problem: .wrongType(expected: expected)))
    }

    @Test("room-level fields of the wrong type are named without a control")
    func roomLevelTypes() {
        #expect(schemaError(#"{"id":1,"controls":[]}"#) == SchemaError(control: nil, field: "id", problem: .wrongType(expected: "a string")))
        #expect(schemaError(#"{"id":"r","title":["T"],"controls":[]}"#) == SchemaError(control: nil, field: "title", problem: .wrongType(expected: "a string")))
        #expect(schemaError(#"{"id":"r","controls":{}}"#) == SchemaError(control: nil, field: "controls", problem: .wrongType(expected: "a list of controls")))
        #expect(schemaError(#"[{"id":"r"}]"#) == SchemaError(control: nil, field: "(room)", problem: .wrongType(expected: "an object")))
    }

    @Test("an unknown field is an error naming the control and the field")
    func unknownFields() {
        #expect(schemaError(#"{"id":"r","name":"x","controls":[]}"#) == SchemaError(control: nil, field: "name", problem: .unknownField))
        #expect(schemaError(roomWith(#"{"id":"g","type":"gauge","min":0,"max":1,"maximum":2}"#))
            == SchemaError(control: "g", field: "maximum", problem: .unknownField))
        #expect(schemaError(roomWith(#"{"id":"g","type":"range","scale":[0,9],"state":{"lowr":1}}"#))
            == SchemaError(control: "g", field: "state.lowr", problem: .unknownField))
        #expect(schemaError(roomWith(#"{"type":"gauge","Min":0}"#)) == SchemaError(control: "#2", field: "Min", problem: .unknownField))
    }

    @Test("text that is not JSON is a schema error for the field (json), with the parser's reason and offset")
    func notJSON() {
        #expect(schemaError(#"{"id":"r",}"#) == SchemaError(control: nil, field: "(json)",
                                                          problem: .invalidState("not JSON: unexpected '}', expected a string key at byte 10")))
    }

    @Test("null counts as absent, so the core reports what is missing")
    func nulls() throws {
        let definition = try SchemaDecoder.room(Array(#"{"id":"r","title":null,"controls":[{"id":"s","type":"slider","min":0,"max":1,"step":null}]}"#.utf8))
        #expect(definition.title == nil)
        #expect(definition.controls?.first?.step == nil)
        let missing = try SchemaDecoder.room(Array(#"{"id":null,"controls":[]}"#.utf8))
        #expect(throws: SchemaError(control: nil, field: "id", problem: .missing)) { try RoomSchema(validating: missing) }
    }

    @Test("decoded definitions still get the core's value checks")
    func valueChecksStillApply() throws {
        let definition = try SchemaDecoder.room(Array(roomWith(#"{"id":"s","type":"snap","values":[3,2]}"#).utf8))
        #expect(throws: SchemaError(control: "s", field: "values", problem: .notAscending(at: 1))) { try RoomSchema(validating: definition) }
        let wrongKind = try SchemaDecoder.room(Array(roomWith(#"{"id":"s","type":"color","min":0}"#).utf8))
        #expect(throws: SchemaError(control: "s", field: "min", problem: .notAllowed(type: "color"))) { try RoomSchema(validating: wrongKind) }
    }

    @Test("a byte order mark before a room file is skipped")
    func byteOrderMark() throws {
        let definition = try SchemaDecoder.room([0xEF, 0xBB, 0xBF] + Array(demoRoomFile.utf8))
        #expect(try RoomSchema(validating: definition) == .demo)
    }

    @Test("an id wins over a welcome's room field, which stands in only when there is no id")
    func roomAlias() throws {
        #expect(try SchemaDecoder.room(Array(#"{"room":"a","controls":[]}"#.utf8)).id == "a")
        #expect(try SchemaDecoder.room(Array(#"{"id":"b","room":"a","controls":[]}"#.utf8)).id == "b")
    }
}
