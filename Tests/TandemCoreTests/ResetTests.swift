import Testing
@testable import TandemCore

/// Reset (`Operation.reset`): a control, or the whole room, back to the
/// schema's initial state as one edit of the sender's.
@Suite("Reset")
struct ResetTests {
    private func twoPeople() -> RoomDriver {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        d.join("ann"); d.join("ben")
        _ = d.drain("ann"); _ = d.drain("ben")
        return d
    }

    private func initial(_ d: RoomDriver, _ control: String) -> ControlState {
        d.room.schema.controls[d.room.schema.index(of: control)!].initial
    }

    @Test("a control's reset commits its initial state by the sender, as a new revision")
    func resetsOneControl() {
        var d = twoPeople()
        _ = d.set("ben", "gain", .number(0.9))
        let before = d.room.revision
        let effects = d.send("ann", .reset(control: "gain"))
        #expect(effects.rejects.isEmpty)
        #expect(effects.commits.map(\.control) == ["gain"])
        #expect(effects.commits.first?.by == "ann")
        #expect(d.state("gain") == initial(d, "gain"))
        #expect(d.room.revision == before + 1)
    }

    @Test("the sender undoes a reset in one step, back to the value it replaced; redo resets again")
    func undoable() {
        var d = twoPeople()
        _ = d.set("ben", "gain", .number(0.9))
        _ = d.send("ann", .reset(control: "gain"))
        #expect(d.send("ann", .undo).commits.map(\.control) == ["gain"])
        #expect(d.state("gain") == .slider(value: 0.9))
        _ = d.send("ann", .redo)
        #expect(d.state("gain") == initial(d, "gain"))
    }

    @Test("a reset of a control already at its initial state makes no revision and nothing to undo")
    func noOp() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.9))
        _ = d.send("ann", .reset(control: "gain"))
        let revision = d.room.revision
        let again = d.send("ann", .reset(control: "gain"))
        #expect(again.rejects.isEmpty && again.commits.isEmpty)
        #expect(d.room.revision == revision)
        // The one undo reverts the first reset, then the set.
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == .slider(value: 0.9))
    }

    @Test("a reset of a held control is busy naming the holder, and changes nothing")
    func busy() {
        var d = twoPeople()
        _ = d.set("ann", "blanks", thumb: "upper", .number(3))
        _ = d.begin("ben", "blanks", "upper")
        let committed = d.room.committed
        let effects = d.send("ann", .reset(control: "blanks"))
        #expect(effects.rejects.map(\.code) == [.busy])
        #expect(effects.rejects.first?.holder == "ben")
        #expect(d.room.committed == committed)
    }

    @Test("a gauge's reset is read_only, a button's bad_value, an unknown control's unknown_control")
    func refusals() {
        var d = twoPeople()
        #expect(d.send("ann", .reset(control: "bpm")).rejects.map(\.code) == [.readOnly])
        #expect(d.send("ann", .reset(control: "nope")).rejects.map(\.code) == [.unknownControl])
        var k = RoomDriver(KindRoomTests.schema)
        k.join("ann")
        #expect(k.send("ann", .reset(control: "go")).rejects.map(\.code) == [.badValue])
    }

    @Test("a viewer's reset is forbidden")
    func viewer() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.9))
        d.join("vic", role: .viewer)
        #expect(d.send("vic", .reset(control: "gain")).rejects.map(\.code) == [.forbidden])
        #expect(d.send("vic", .reset(control: nil)).rejects.map(\.code) == [.forbidden])
        #expect(d.state("gain") == .slider(value: 0.9))
    }

    @Test("a room's reset puts every settable control back as ONE revision, leaving the gauge; one undo reverts it all")
    func wholeRoom() {
        var d = twoPeople()
        for (control, state) in BatchTests.warm {
            switch state {
            case let .gauge(value, _): _ = d.set("ben", control, .number(value))
            default: _ = d.send("ben", .batch(Batch(origin: "x", states: [control: state])))
            }
        }
        let bpm = d.state("bpm")
        let before = d.room.revision
        let effects = d.send("ann", .reset(control: nil))
        #expect(effects.rejects.isEmpty)
        #expect(Set(effects.commits.map(\.control)) == ["size", "blanks", "color", "gain"])
        #expect(effects.commits.allSatisfy { $0.revision == before + 1 && $0.by == "ann" })
        #expect(d.room.revision == before + 1)
        for control in ["size", "blanks", "color", "gain"] { #expect(d.state(control) == initial(d, control)) }
        #expect(d.state("bpm") == bpm)
        _ = d.send("ann", .undo)
        for control in ["size", "blanks", "color", "gain"] { #expect(d.state(control) == BatchTests.warm[control]) }
    }

    @Test("a room's reset leaves buttons' presses alone")
    func buttonsKeepPresses() {
        var d = RoomDriver(KindRoomTests.schema)
        d.join("ann")
        _ = d.step("ann", "go", by: 1)
        _ = d.set("ann", "filter", .flag(true))
        _ = d.send("ann", .reset(control: nil))
        #expect(d.state("go") == .button(presses: 1))
        #expect(d.state("filter") == .toggle(on: false))
    }

    @Test("a room's reset is busy while any control it would change is held")
    func wholeRoomBusy() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.9))
        _ = d.begin("ben", "gain", nil)
        let effects = d.send("ann", .reset(control: nil))
        #expect(effects.rejects.map(\.code) == [.busy])
        #expect(d.state("gain") == .slider(value: 0.9))
    }
}
