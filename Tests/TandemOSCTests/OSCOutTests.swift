import Testing
import TandemCore
import TandemOSC

@Suite("OSC out: a state as messages")
struct OSCOutTests {
    @Test("the demo room's table")
    func demoTable() {
        let demo = RoomSchema.demo
        func out(_ id: String) -> [OSCMessage] {
            let control = Fixtures.control(id, in: demo)
            return OSCOut.messages(room: "demo", control: control, state: control.initial)
        }
        #expect(out("gain") == [.at("/demo/gain", .float(0.5))])
        #expect(out("blanks") == [.at("/demo/blanks/lower", .int(0)), .at("/demo/blanks/upper", .int(1))])
        #expect(out("color") == [.at("/demo/color/hex", .string("#336699")),
                                 .at("/demo/color/red", .float(Float(0x33) / 255)),
                                 .at("/demo/color/green", .float(Float(0x66) / 255)),
                                 .at("/demo/color/blue", .float(Float(0x99) / 255))])
        #expect(out("size") == [.at("/demo/size", .float(60)), .at("/demo/size/index", .int(2))])
        #expect(out("bpm") == [.at("/demo/bpm", .float(67))])
    }

    @Test("a preview sends the messages of the thumb it moves")
    func previewThumbs() {
        let demo = RoomSchema.demo
        func out(_ id: String, _ thumb: Thumb) -> [String] {
            let control = Fixtures.control(id, in: demo)
            return OSCOut.messages(room: "demo", control: control, thumb: thumb, state: control.initial).map(\.address)
        }
        #expect(out("gain", .value) == ["/demo/gain"])
        #expect(out("blanks", .lower) == ["/demo/blanks/lower"])
        #expect(out("blanks", .upper) == ["/demo/blanks/upper"])
        #expect(out("color", .green) == ["/demo/color/hex", "/demo/color/green"])
        #expect(out("size", .value) == ["/demo/size", "/demo/size/index"])
    }

    @Test("the kinds the demo room lacks")
    func otherKinds() {
        func out(_ id: String, _ state: ControlState, _ numbers: OSCNumberWidth = .float) -> [OSCMessage] {
            OSCOut.messages(room: "r", control: Fixtures.control(id), state: state, numbers: numbers)
        }
        #expect(out("filter", .toggle(on: true)) == [.at("/r/filter", .int(1))])
        #expect(out("filter", .toggle(on: false)) == [.at("/r/filter", .int(0))])
        #expect(out("pad", .xy(x: 0.25, y: 440)) == [.at("/r/pad/x", .float(0.25)), .at("/r/pad/y", .float(440))])
        #expect(out("cutoff", .slider(value: 1234)) == [.at("/r/cutoff", .float(1234))])
        #expect(out("go", .button(presses: 3)) == [.at("/r/go", .int(3))])
        #expect(out("go", .button(presses: ButtonMath.maxPresses)) == [.at("/r/go", .int(Int32.max))])
        #expect(out("free", .slider(value: 0.1), .double) == [.at("/r/free", .double(0.1))])
        #expect(out("bpm", .gauge(value: 1e6, fraction: 1)) == [.at("/r/bpm", .float(1e6))])
    }

    @Test("a state of another kind than the control's gives nothing")
    func mismatched() {
        #expect(OSCOut.messages(room: "r", control: Fixtures.control("gain"), state: .toggle(on: true)).isEmpty)
    }

    @Test("every kind has messages for every legal state")
    func everyKind() {
        for control in Fixtures.kinds.controls {
            for state in Fixtures.states(of: control) {
                let messages = OSCOut.messages(room: "every-kind", control: control, state: state)
                #expect(!messages.isEmpty, "\(control.id) \(state)")
                for message in messages {
                    #expect(message.address.hasPrefix("/every-kind/\(control.id)"))
                    #expect(OSCIn.room(of: message.address) == "every-kind")
                    #expect(message.arguments.count == 1)
                }
            }
        }
    }

    @Test("the dump: every control in schema order, then dump/end with the revision")
    func dump() {
        let demo = RoomSchema.demo
        let states = demo.controls.map(\.initial)
        let dump = OSCOut.dump(room: "demo", schema: demo, states: states, revision: 41)
        var expected: [OSCMessage] = []
        for (control, state) in zip(demo.controls, states) {
            expected += OSCOut.messages(room: "demo", control: control, state: state)
        }
        expected.append(.at("/demo/dump/end", .int(41)))
        #expect(dump == expected)
        #expect(dump.map(\.address) == ["/demo/size", "/demo/size/index", "/demo/blanks/lower", "/demo/blanks/upper",
                                        "/demo/color/hex", "/demo/color/red", "/demo/color/green", "/demo/color/blue",
                                        "/demo/gain", "/demo/bpm", "/demo/dump/end"])
        // Fewer states than controls: the ones given, then the end.
        #expect(OSCOut.dump(room: "demo", schema: demo, states: [], revision: 0) == [.at("/demo/dump/end", .int(0))])
        #expect(OSCOut.dump(room: "demo", schema: demo, states: states, revision: Int.max).last == .at("/demo/dump/end", .int(Int32.max)))
    }
}
