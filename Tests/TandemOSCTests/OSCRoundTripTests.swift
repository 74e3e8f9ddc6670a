import Testing
import TandemCore
import TandemOSC

/// The messages for a state, fed back in, give operations that make a room reproduce the state.
@Suite("OSC round trip: out, in, applied")
struct OSCRoundTripTests {
    /// The state a room at its initial states commits after the messages of `state` are fed back twice
    /// (twice: a range's thumbs are clamped against each other, so the second pass settles the first).
    static func replay(_ control: Control, _ state: ControlState, _ numbers: OSCNumberWidth,
                       schema: RoomSchema = Fixtures.kinds) -> ControlState {
        var room = Room(schema: schema)
        let messages = OSCOut.messages(room: schema.id, control: control, state: state, numbers: numbers)
        var seq = 0
        for _ in 0..<2 {
            for message in messages {
                guard case let .success(.operation(operation)) = OSCIn.request(message, schema: schema) else {
                    Issue.record("\(message) is no operation: \(OSCIn.request(message, schema: schema))")
                    continue
                }
                seq += 1
                let effects = room.apply(ClientMessage(seq: seq, operation), from: "osc", at: Moment(nanoseconds: Int64(seq)))
                for effect in effects {
                    if case let .reject(reject) = effect { Issue.record("\(message) refused: \(reject.message)") }
                }
            }
        }
        return room.committed[schema.index(of: control.id)!]
    }

    /// Controls whose values sit on a grid or on rounded digits: floats carry them exactly.
    static let onAGrid: Set<String> = ["gain", "cutoff", "size", "blanks", "color", "filter", "pad", "grid"]

    @Test("with doubles, every state of every kind comes back exactly", arguments: Fixtures.kinds.controls.filter { $0.kind != .button })
    func doubles(control: Control) {
        for state in Fixtures.states(of: control) {
            #expect(Self.replay(control, state, .double) == state, "\(control.id)")
        }
    }

    @Test("with floats, grid values come back exactly and free ones within a float's precision",
          arguments: Fixtures.kinds.controls.filter { $0.kind != .button })
    func floats(control: Control) {
        for state in Fixtures.states(of: control) {
            Self.expectBack(Self.replay(control, state, .float), state, exactly: Self.onAGrid.contains(control.id), control.id)
        }
    }

    /// `back == state`, or (a free value carried as a float) each number within a float's precision.
    static func expectBack(_ back: ControlState, _ state: ControlState, exactly: Bool, _ id: String) {
        if exactly {
            #expect(back == state, "\(id)")
            return
        }
        #expect(back.numbers.count == state.numbers.count)
        for (a, b) in zip(back.numbers, state.numbers) {
            #expect(abs(a - b) <= 1e-6 * max(1, abs(b)), "\(id): \(a) vs \(b)")
        }
    }

    @Test("the demo room round-trips with floats (its gauge within a float's precision)")
    func demo() {
        let demo = RoomSchema.demo
        for control in demo.controls {
            for state in Fixtures.states(of: control) {
                Self.expectBack(Self.replay(control, state, .float, schema: demo), state, exactly: control.id != "bpm", control.id)
            }
        }
    }

    @Test("a button's message fed back is a press, not a count")
    func button() {
        let go = Fixtures.control("go")
        #expect(Self.replay(go, .button(presses: 7), .float) == .button(presses: 2)) // one press per pass
    }

    @Test("a whole colour by its hex alone")
    func hex() {
        let color = Fixtures.control("color")
        let request = OSCIn.request(.at("/every-kind/color/hex", .string("#102030")), schema: Fixtures.kinds)
        #expect(request == .success(.operation(.set(control: "color", thumb: nil, value: .text("#102030")))))
        var room = Room(schema: Fixtures.kinds)
        guard case let .success(.operation(operation)) = request else { return }
        _ = room.apply(ClientMessage(seq: 1, operation), from: "osc", at: Moment(nanoseconds: 0))
        #expect(room.committed[Fixtures.kinds.index(of: "color")!].numbers
            == [0x10, 0x20, 0x30].map { color.channelLevel(Double($0) / 255) })
    }
}
