import Testing
import TandemCore
import TandemOSC

@Suite("OSC in: messages as requests")
struct OSCInTests {
    static func request(_ message: OSCMessage, _ schema: RoomSchema = Fixtures.kinds) -> Result<OSCIn.Request, OSCDrop> {
        OSCIn.request(message, schema: schema)
    }

    static func operation(_ message: OSCMessage, _ schema: RoomSchema = Fixtures.kinds) -> Operation? {
        guard case let .success(.operation(operation)) = request(message, schema) else { return nil }
        return operation
    }

    static func drop(_ message: OSCMessage, _ schema: RoomSchema = Fixtures.kinds) -> OSCDrop? {
        guard case let .failure(drop) = request(message, schema) else { return nil }
        return drop
    }

    @Test("the room an address names")
    func room() {
        #expect(OSCIn.room(of: "/demo/gain") == "demo")
        #expect(OSCIn.room(of: "/demo/color/red") == "demo")
        #expect(OSCIn.room(of: "/every-kind/go/step") == "every-kind")
        #expect(OSCIn.room(of: "/demo/dump") == "demo")
        #expect(OSCIn.room(of: "/a.b_c-9/x") == "a.b_c-9")
        for address in ["/demo", "/demo/", "demo/gain", "", "/", "//gain", "/demo//gain", "/de mo/gain", "/*/gain",
                        "/demo?/gain", "/{demo,x}/gain", "/[d]emo/gain", "/dé/gain", "/d#/gain", "/d,e/gain"] {
            #expect(OSCIn.room(of: address) == nil, "\(address)")
        }
    }

    @Test("numbers come as float, int or double")
    func numericTypes() {
        for argument in [OSCArgument.float(0.25), .int(0), .double(0.25)] {
            let value = argument.number!
            #expect(Self.operation(.at("/every-kind/gain", argument)) == .set(control: "gain", thumb: nil, value: .number(value)))
        }
        #expect(Self.operation(.at("/every-kind/size/index", .float(3))) == .set(control: "size", thumb: nil, value: .number(80)))
        #expect(Self.operation(.at("/every-kind/filter", .double(1))) == .set(control: "filter", thumb: nil, value: .flag(true)))
    }

    @Test("a set of every kind")
    func sets() {
        let expected: [(OSCMessage, Operation)] = [
            (.at("/every-kind/gain", .float(0.5)), .set(control: "gain", thumb: nil, value: .number(0.5))),
            (.at("/every-kind/cutoff", .int(440)), .set(control: "cutoff", thumb: nil, value: .number(440))),
            (.at("/every-kind/size", .int(60)), .set(control: "size", thumb: nil, value: .number(60))),
            (.at("/every-kind/size/index", .int(0)), .set(control: "size", thumb: nil, value: .number(20))),
            (.at("/every-kind/blanks/lower", .int(1)), .set(control: "blanks", thumb: "lower", value: .number(1))),
            (.at("/every-kind/blanks/upper", .float(2.5)), .set(control: "blanks", thumb: "upper", value: .number(2.5))),
            (.at("/every-kind/color/red", .float(0.5)), .set(control: "color", thumb: "red", value: .number(0.5))),
            (.at("/every-kind/color/green", .int(1)), .set(control: "color", thumb: "green", value: .number(1))),
            (.at("/every-kind/tint/blue", .double(0.1)), .set(control: "tint", thumb: "blue", value: .number(0.1))),
            (.at("/every-kind/color/hex", .string("#aabbcc")), .set(control: "color", thumb: nil, value: .text("#aabbcc"))),
            (.at("/every-kind/bpm", .float(120)), .set(control: "bpm", thumb: nil, value: .number(120))),
            (.at("/every-kind/filter", .int(0)), .set(control: "filter", thumb: nil, value: .flag(false))),
            (.at("/every-kind/filter", .int(1)), .set(control: "filter", thumb: nil, value: .flag(true))),
            (.at("/every-kind/pad", .float(0.5), .int(440)), .set(control: "pad", thumb: nil, value: .point(x: 0.5, y: 440))),
            (.at("/every-kind/pad/x", .float(-0.5)), .set(control: "pad", thumb: nil, value: .point(x: -0.5, y: nil))),
            (.at("/every-kind/pad/y", .int(100)), .set(control: "pad", thumb: nil, value: .point(x: nil, y: 100))),
            (.at("/every-kind/go"), .set(control: "go", thumb: nil, value: .flag(true))),
            (.at("/every-kind/go", .int(1)), .set(control: "go", thumb: nil, value: .flag(true))),
            (.at("/every-kind/go", .float(0.5)), .set(control: "go", thumb: nil, value: .flag(true))),
        ]
        for (message, operation) in expected {
            #expect(Self.request(message) == .success(.operation(operation)), "\(message.address)")
        }
    }

    @Test("a step of every kind but the gauge")
    func steps() {
        let expected: [(OSCMessage, Operation)] = [
            (.at("/every-kind/gain/step", .int(3)), .step(control: "gain", thumb: nil, by: 3)),
            (.at("/every-kind/cutoff/step", .float(-2)), .step(control: "cutoff", thumb: nil, by: -2)),
            (.at("/every-kind/size/step", .int(1)), .step(control: "size", thumb: nil, by: 1)),
            (.at("/every-kind/size/index/step", .double(-1)), .step(control: "size", thumb: nil, by: -1)),
            (.at("/every-kind/blanks/lower/step", .int(1)), .step(control: "blanks", thumb: "lower", by: 1)),
            (.at("/every-kind/blanks/upper/step", .int(-1)), .step(control: "blanks", thumb: "upper", by: -1)),
            (.at("/every-kind/color/blue/step", .int(5)), .step(control: "color", thumb: "blue", by: 5)),
            (.at("/every-kind/filter/step", .int(1)), .step(control: "filter", thumb: nil, by: 1)),
            (.at("/every-kind/pad/step", .int(1), .int(-1)), .step(control: "pad", thumb: nil, by: 1, byY: -1)),
            (.at("/every-kind/pad/x/step", .int(2)), .step(control: "pad", thumb: nil, by: 2, byY: 0)),
            (.at("/every-kind/pad/y/step", .int(2)), .step(control: "pad", thumb: nil, by: 0, byY: 2)),
            (.at("/every-kind/go/step", .int(1)), .step(control: "go", thumb: nil, by: 1)),
        ]
        for (message, operation) in expected {
            #expect(Self.request(message) == .success(.operation(operation)), "\(message.address)")
        }
    }

    @Test("steps move the room as the wire's do")
    func stepsApplied() {
        let schema = Fixtures.kinds
        var room = Room(schema: schema)
        let messages: [OSCMessage] = [.at("/every-kind/gain/step", .int(3)), .at("/every-kind/size/index/step", .int(1)),
                                      .at("/every-kind/blanks/upper/step", .int(1)), .at("/every-kind/filter/step", .int(1)),
                                      .at("/every-kind/grid/step", .int(2), .int(3)), .at("/every-kind/go/step", .int(1))]
        for (n, message) in messages.enumerated() {
            let operation = Self.operation(message)!
            let effects = room.apply(ClientMessage(seq: n + 1, operation), from: "osc", at: Moment(nanoseconds: 0))
            for effect in effects {
                if case let .reject(reject) = effect { Issue.record("\(message.address) refused: \(reject.message)") }
            }
        }
        func state(_ id: String) -> ControlState { room.committed[schema.index(of: id)!] }
        #expect(state("gain") == .slider(value: 0.53))
        #expect(state("size") == .snap(index: 3, value: 80))
        #expect(state("blanks") == .range(RangeState(lower: 0, upper: 2)))
        #expect(state("filter") == .toggle(on: true))
        #expect(state("grid") == .xy(x: 2, y: 3))
        #expect(state("go") == .button(presses: 1))
    }

    @Test("dump, name, undo, redo and reset")
    func roomAddresses() {
        #expect(Self.request(.at("/every-kind/undo")) == .success(.operation(.undo)))
        #expect(Self.request(.at("/every-kind/redo", .int(1))) == .success(.operation(.redo)))
        #expect(Self.request(.at("/every-kind/reset")) == .success(.operation(.reset(control: nil))))
        #expect(Self.request(.at("/every-kind/cutoff/reset", .int(1))) == .success(.operation(.reset(control: "cutoff"))))
        #expect(Self.drop(.at("/every-kind/nope/reset"))?.kind == .unknownControl)
        #expect(Self.drop(.at("/every-kind/undo/step", .int(1)))?.kind == .unknownControl)
        #expect(Self.request(.at("/every-kind/dump")) == .success(.dump))
        #expect(Self.request(.at("/every-kind/dump", .int(1))) == .success(.dump)) // a bang with a 1
        #expect(Self.request(.at("/every-kind/name", .string("Ann's patch"))) == .success(.name("Ann's patch")))
        #expect(Self.request(.at("/every-kind/name", .string("  Max \n patch  "))) == .success(.name("Max patch")))
        #expect(Self.drop(.at("/every-kind/name"))?.kind == .wrongCount)
        #expect(Self.drop(.at("/every-kind/name", .string("a"), .string("b")))?.kind == .wrongCount)
        #expect(Self.drop(.at("/every-kind/name", .int(3)))?.kind == .wrongType)
        #expect(Self.drop(.at("/every-kind/name", .string(" \u{202E} ")))?.kind == .badValue)
        #expect(Self.drop(.at("/every-kind/name", .string("")))?.kind == .badValue)
        #expect(Self.drop(.at("/every-kind/dump/end", .int(3)))?.kind == .unknownControl) // the server's own, echoed
    }

    @Test("controls named dump, name or step keep the forms the room's addresses do not use")
    func clashes() {
        let clash = Fixtures.clashing
        #expect(Self.request(.at("/clash/dump"), clash) == .success(.dump))
        #expect(Self.operation(.at("/clash/dump", .float(0.5)), clash) == .set(control: "dump", thumb: nil, value: .number(0.5)))
        #expect(Self.request(.at("/clash/name", .string("Ann")), clash) == .success(.name("Ann")))
        #expect(Self.operation(.at("/clash/name", .float(0.5)), clash) == .set(control: "name", thumb: nil, value: .number(0.5)))
        #expect(Self.operation(.at("/clash/step", .int(4)), clash) == .set(control: "step", thumb: nil, value: .number(4)))
        #expect(Self.operation(.at("/clash/step/step", .int(1)), clash) == .step(control: "step", thumb: nil, by: 1))
        #expect(Self.operation(.at("/clash/dump/step", .int(1)), clash) == .step(control: "dump", thumb: nil, by: 1))
    }

    /// A message for each way to be dropped, with its label.
    static let dropTable: [(OSCMessage, OSCDrop.Label)] = [
        // unknown_address
        (OSCMessage.at("/other/gain", .float(1)), OSCDrop.Label.unknownAddress),
        (.at("every-kind/gain", .float(1)), .unknownAddress),
        (.at("/every-kind", .float(1)), .unknownAddress),
        (.at("/every-kind/", .float(1)), .unknownAddress),
        (.at("/every-kind//gain", .float(1)), .unknownAddress),
        (.at("/every-kind/*", .float(1)), .unknownAddress),
        (.at("/every-kind/ga?n", .float(1)), .unknownAddress),
        (.at("/every-kind/{gain,cutoff}", .float(1)), .unknownAddress),
        (.at("/every-kind/[g]ain", .float(1)), .unknownAddress),
        (.at("/every kind/gain", .float(1)), .unknownAddress),
        // unknown_control
        (.at("/every-kind/volume", .float(1)), .unknownControl),
        (.at("/every-kind/volume/step", .int(1)), .unknownControl),
        // unknown_thumb
        (.at("/every-kind/gain/value", .float(1)), .unknownThumb),
        (.at("/every-kind/blanks", .int(1)), .unknownThumb),
        (.at("/every-kind/blanks/middle", .int(1)), .unknownThumb),
        (.at("/every-kind/blanks/step", .int(1)), .unknownThumb),
        (.at("/every-kind/color", .string("#112233")), .unknownThumb),
        (.at("/every-kind/color/alpha", .float(1)), .unknownThumb),
        (.at("/every-kind/color/hex/step", .int(1)), .unknownThumb),
        (.at("/every-kind/color/step", .int(1)), .unknownThumb),
        (.at("/every-kind/pad/z", .float(1)), .unknownThumb),
        (.at("/every-kind/size/value", .float(1)), .unknownThumb),
        (.at("/every-kind/gain/step/step", .int(1)), .unknownThumb),
        (.at("/every-kind/blanks/lower/x", .int(1)), .unknownThumb),
        // wrong_count
        (.at("/every-kind/gain"), .wrongCount),
        (.at("/every-kind/gain", .float(1), .float(2)), .wrongCount),
        (.at("/every-kind/pad", .float(1)), .wrongCount),
        (.at("/every-kind/pad/step", .int(1)), .wrongCount),
        (.at("/every-kind/color/hex"), .wrongCount),
        (.at("/every-kind/go", .int(1), .int(1)), .wrongCount),
        (.at("/every-kind/gain/step"), .wrongCount),
        // wrong_type
        (.at("/every-kind/gain", .string("0.5")), .wrongType),
        (.at("/every-kind/color/hex", .float(1)), .wrongType),
        (.at("/every-kind/pad", .float(1), .string("y")), .wrongType),
        (.at("/every-kind/go", .string("bang")), .wrongType),
        (.at("/every-kind/size/step", .string("up")), .wrongType),
        // bad_value
        (.at("/every-kind/gain", .float(.nan)), .badValue),
        (.at("/every-kind/gain", .double(.infinity)), .badValue),
        (.at("/every-kind/bpm", .float(-.infinity)), .badValue),
        (.at("/every-kind/pad/x", .double(.nan)), .badValue),
        (.at("/every-kind/gain/step", .float(0.5)), .badValue),
        (.at("/every-kind/gain/step", .double(1e16)), .badValue),
        (.at("/every-kind/pad/step", .int(1), .float(0.5)), .badValue),
        (.at("/every-kind/size/index", .int(5)), .badValue),
        (.at("/every-kind/size/index", .int(-1)), .badValue),
        (.at("/every-kind/size/index", .float(1.5)), .badValue),
        (.at("/every-kind/color/hex", .string("#12345")), .badValue),
        (.at("/every-kind/color/hex", .string("red")), .badValue),
        (.at("/every-kind/filter", .float(0.5)), .badValue),
        (.at("/every-kind/filter", .int(2)), .badValue),
        (.at("/every-kind/go/step", .int(0)), .badValue),
        // read_only
        (.at("/every-kind/bpm/step", .int(1)), .readOnly),
        // release
        (.at("/every-kind/go", .int(0)), .release),
        (.at("/every-kind/go", .float(0)), .release),
    ]

    @Test("every drop reason", arguments: dropTable)
    func drops(message: OSCMessage, label: OSCDrop.Label) {
        let drop = Self.drop(message)
        #expect(drop?.kind == label, "\(message.address) \(message.arguments): \(String(describing: drop))")
        #expect(drop?.label == label.rawValue)
        #expect(drop.map { !$0.reason.isEmpty } == true)
    }

    @Test("every label is used by the table above and is a metrics-safe name")
    func labels() {
        #expect(OSCDrop.Label.allCases.map(\.rawValue) == ["unknown_address", "unknown_control", "unknown_thumb", "wrong_count",
                                                           "wrong_type", "bad_value", "read_only", "release",
                                                           "malformed", "unknown_room", "not_allowed",
                                                           "dump_limited", "name_limited", "too_many_writers"])
        #expect(Set(Self.dropTable.map(\.1)) == Set(OSCDrop.requestLabels))
        #expect(OSCDrop.Label.allCases.allSatisfy { $0.rawValue.allSatisfy { $0 == "_" || ("a"..."z").contains($0) } })
    }

    @Test("a drop's sentence names what was wrong")
    func sentences() {
        #expect(Self.drop(.at("/every-kind/volume", .float(1)))?.reason == "no control 'volume' in room 'every-kind'")
        #expect(Self.drop(.at("/every-kind/blanks", .int(1)))?.reason
            == "/every-kind/blanks: 'blanks' needs a thumb: /blanks/lower, /blanks/upper")
        #expect(Self.drop(.at("/every-kind/gain", .string("x")))?.reason == "/every-kind/gain takes a number (f, i or d), not s")
        #expect(Self.drop(.at("/every-kind/gain"))?.reason == "/every-kind/gain takes 1 argument, not 0")
        let long = "/every-kind/" + String(repeating: "x", count: 5000)
        #expect(Self.drop(.at(long, .float(1)))?.reason.count ?? 0 < 200)
    }
}
