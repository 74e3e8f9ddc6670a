import Testing
import TandemCore
import TandemWire

@Suite("Reset decoding and a room's layout")
struct ResetWireTests {
    @Test("a reset decodes with its control, or with none (absent or null) for the whole room")
    func decodesReset() {
        #expect(decode(#"{"type":"reset","seq":4,"control":"gain"}"#) == .message(ClientMessage(seq: 4, .reset(control: "gain"))))
        #expect(decode(#"{"type":"reset","seq":5}"#) == .message(ClientMessage(seq: 5, .reset(control: nil))))
        #expect(decode(#"{"type":"reset","seq":6,"control":null,"thumb":"x"}"#) == .message(ClientMessage(seq: 6, .reset(control: nil))))
    }

    @Test("a reset whose control is not a string, or without a usable seq, is bad_message")
    func badReset() {
        for (frame, seq) in [(#"{"type":"reset","seq":7,"control":3}"#, 7 as Int?), (#"{"type":"reset","seq":8,"control":["a"]}"#, 8),
                             (#"{"type":"reset"}"#, nil), (#"{"type":"reset","seq":0}"#, nil)] {
            guard case let .refused(got, code, _) = decode(frame) else {
                Issue.record("\(frame) decoded")
                continue
            }
            #expect(got == seq && code == .badMessage, "\(frame)")
        }
    }

    @Test("an unknown type's refusal lists reset")
    func typeListNamesReset() {
        guard case let .refused(_, _, message) = decode(#"{"type":"rest","seq":1}"#) else {
            Issue.record("decoded")
            return
        }
        #expect(message.contains("\"reset\""))
    }

    @Test("a room file's layout: compact is read, kept in the welcome and in the stored schema; cards is the default and left out")
    func layout() throws {
        let compact = try RoomSchema(validating: SchemaDecoder.room(Array(#"{"id":"r","layout":"compact","controls":[{"id":"g","type":"gauge","min":0,"max":1}]}"#.utf8)))
        #expect(compact.layout == .compact)
        let welcome = String(decoding: OutboundEncoder.welcome(Room(schema: compact).snapshot), as: UTF8.self)
        #expect(welcome.hasPrefix(#"{"room":"r","title":"r","layout":"compact","rev":0,"#))
        // A welcome fed back as a room file keeps the layout.
        #expect(try RoomSchema(validating: SchemaDecoder.room(Array(welcome.utf8))) == compact)
        let plain = try RoomSchema(validating: SchemaDecoder.room(Array(#"{"id":"r","controls":[{"id":"g","type":"gauge","min":0,"max":1}]}"#.utf8)))
        #expect(plain.layout == .cards)
        #expect(!String(decoding: OutboundEncoder.welcome(Room(schema: plain).snapshot), as: UTF8.self).contains("layout"))
        #expect(try RoomSchema(validating: SchemaDecoder.room(Array(#"{"id":"r","layout":"cards","controls":[{"id":"g","type":"gauge","min":0,"max":1}]}"#.utf8))) == plain)
    }

    @Test("an unknown layout names the field and the choices; a layout that is not a string says what was expected")
    func badLayout() throws {
        #expect(throws: SchemaError(control: nil, field: "layout", problem: .unknownOption("dense", allowed: ["cards", "compact"]))) {
            try RoomSchema(validating: SchemaDecoder.room(Array(#"{"id":"r","layout":"dense","controls":[{"id":"g","type":"gauge","min":0,"max":1}]}"#.utf8)))
        }
        #expect(throws: SchemaError(control: nil, field: "layout", problem: .wrongType(expected: "a string"))) {
            try SchemaDecoder.room(Array(#"{"id":"r","layout":1,"controls":[]}"#.utf8))
        }
    }
}

@Suite("A control's series field on the wire")
struct SeriesFieldWireTests {
    @Test("series is written only where it differs from the kind's default, and reads back")
    func roundTrip() throws {
        let file = #"{"id":"r","controls":[{"id":"g","type":"gauge","min":0,"max":1},{"id":"q","type":"gauge","min":0,"max":1,"series":false},{"id":"s","type":"slider","min":0,"max":1,"series":true},{"id":"p","type":"slider","min":0,"max":1,"series":false}]}"#
        let schema = try RoomSchema(validating: SchemaDecoder.room(Array(file.utf8)))
        let welcome = String(decoding: OutboundEncoder.welcome(Room(schema: schema).snapshot), as: UTF8.self)
        #expect(welcome.contains(#"{"id":"g","type":"gauge","label":"g","commit":"release","min":0"#))
        #expect(welcome.contains(#""id":"q","type":"gauge","label":"q","commit":"release","series":false,"#))
        #expect(welcome.contains(#""id":"s","type":"slider","label":"s","commit":"release","series":true,"#))
        #expect(welcome.contains(#""id":"p","type":"slider","label":"p","commit":"release","min""#))
        #expect(try RoomSchema(validating: SchemaDecoder.room(Array(welcome.utf8))) == schema)
    }

    @Test("series must be a boolean")
    func mustBeBoolean() {
        #expect(throws: SchemaError(control: "g", field: "series", problem: .wrongType(expected: "true or false"))) {
            try SchemaDecoder.room(Array(#"{"id":"r","controls":[{"id":"g","type":"gauge","min":0,"max":1,"series":"yes"}]}"#.utf8))
        }
    }
}
