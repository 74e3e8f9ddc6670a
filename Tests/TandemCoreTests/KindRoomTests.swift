import Testing
@testable import TandemCore

/// The room's rules for toggles, xy pads, buttons and log sliders: what each
/// operation commits, what it refuses, holds, undo and batches.
@Suite("Room rules of the v1.1 kinds")
struct KindRoomTests {
    static let schema: RoomSchema = {
        do {
            return try RoomSchema(validating: RoomDefinition(id: "synth", controls: [
                ControlDefinition(id: "filter", type: "toggle"),
                ControlDefinition(id: "pad", type: "xy", x: AxisDefinition(min: 0, max: 1),
                                  y: AxisDefinition(min: 20, max: 20000, scale: "log")),
                ControlDefinition(id: "go", type: "button"),
                ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
                ControlDefinition(id: "grid", type: "xy", x: AxisDefinition(min: 0, max: 10, step: 1),
                                  y: AxisDefinition(min: 0, max: 10, step: 1)),
            ]))
        } catch {
            fatalError("\(error)")
        }
    }()

    private func driver() -> RoomDriver {
        var d = RoomDriver(Self.schema)
        d.join("ann")
        d.join("bob")
        return d
    }

    private func drag(_ d: inout RoomDriver, _ who: ClientID, _ control: String, _ phase: DragPhase, _ pointer: Pointer?) -> [Effect] {
        d.send(who, .drag(control: control, thumb: nil, phase: phase, pointer: pointer))
    }

    // MARK: toggle

    @Test("a toggle flips on any non-zero step, each flip a revision; by 0 changes nothing")
    func toggleSteps() {
        var d = driver()
        var effects = d.step("ann", "filter", by: 1)
        #expect(d.state("filter") == .toggle(on: true) && effects.commits.map(\.revision) == [1])
        effects = d.step("ann", "filter", by: -3)
        #expect(d.state("filter") == .toggle(on: false) && effects.commits.map(\.revision) == [2])
        effects = d.step("ann", "filter", by: 0)
        #expect(effects.commits.isEmpty && effects.rejects.isEmpty && d.room.revision == 2)
        #expect(d.step("ann", "filter", by: 0.5).rejects.map(\.code) == [.badValue])
    }

    @Test("a toggle is set with true, false, 1 or 0; anything else is bad_value and changes nothing")
    func toggleSets() {
        var d = driver()
        _ = d.set("ann", "filter", .flag(true))
        #expect(d.state("filter") == .toggle(on: true))
        _ = d.set("ann", "filter", .number(0))
        #expect(d.state("filter") == .toggle(on: false))
        _ = d.set("ann", "filter", .number(1))
        #expect(d.state("filter") == .toggle(on: true))
        #expect(d.set("ann", "filter", .flag(true)).commits.isEmpty) // already on: no revision
        for bad: SetValue in [.number(2), .number(0.5), .text("on"), .other("null"), .point(x: 1, y: nil)] {
            let rejects = d.set("ann", "filter", bad).rejects
            #expect(rejects.map(\.code) == [.badValue], "\(bad)")
        }
        #expect(d.set("ann", "filter", .number(2)).rejects.first?.message.contains("true or false") == true)
        #expect(d.state("filter") == .toggle(on: true) && d.room.revision == 3)
    }

    @Test("a toggle and a button refuse drags with bad_value")
    func noDrags() {
        var d = driver()
        for control in ["filter", "go"] {
            let rejects = drag(&d, "ann", control, .begin, nil).rejects
            #expect(rejects.map(\.code) == [.badValue], "\(control)")
            #expect(rejects.first?.message.contains("takes set or step, not drags") == true)
        }
        #expect(d.room.revision == 0)
    }

    @Test("undo and redo of a toggle put it back and forth")
    func toggleUndo() {
        var d = driver()
        _ = d.step("ann", "filter", by: 1)
        _ = d.send("ann", .undo)
        #expect(d.state("filter") == .toggle(on: false))
        _ = d.send("ann", .redo)
        #expect(d.state("filter") == .toggle(on: true))
    }

    // MARK: xy

    @Test("an xy drag previews both axes (dy up the pad), and the release commits them as one revision")
    func padDrag() {
        var d = driver()
        _ = drag(&d, "ann", "pad", .begin, nil)
        _ = drag(&d, "ann", "pad", .move, .dx(0.25, dy: 0.5))
        #expect(d.shown("pad") == .xy(x: 0.25, y: 632))
        #expect(d.state("pad") == .xy(x: 0, y: 20))
        let end = drag(&d, "ann", "pad", .end, .dx(0.5, dy: 2))
        #expect(end.commits.map(\.state) == [.xy(x: 0.5, y: 20000)])
        #expect(d.state("pad") == .xy(x: 0.5, y: 20000) && d.room.revision == 1)
    }

    @Test("an xy drag may start at [fx, fy]; later dx and dy count from there; a lone dy leaves x where it was")
    func padAt() {
        var d = driver()
        _ = drag(&d, "ann", "grid", .begin, .at(0.3, y: 0.76))
        #expect(d.shown("grid") == .xy(x: 3, y: 8))
        _ = drag(&d, "ann", "grid", .move, .dx(0, dy: -0.5))
        #expect(d.shown("grid") == .xy(x: 3, y: 3))
        _ = drag(&d, "ann", "grid", .end, nil)
        #expect(d.state("grid") == .xy(x: 3, y: 3))
        #expect(drag(&d, "ann", "grid", .begin, .at(0.5)).rejects.map(\.code) == [.badValue])
        #expect(drag(&d, "ann", "grid", .begin, .at(0.5, y: .nan)).rejects.map(\.code) == [.badValue])
        #expect(drag(&d, "ann", "cutoff", .begin, .at(0.5, y: 0.5)).rejects.first?.message == "at must be a number, not array")
        #expect(drag(&d, "ann", "grid", .begin, .dx(0, dy: .infinity)).rejects.map(\.code) == [.badValue])
    }

    @Test("a held pad is busy for others' drags, sets and steps, naming the holder; a cancel restores it")
    func padBusy() {
        var d = driver()
        _ = drag(&d, "ann", "pad", .begin, .at(0.5, y: 0.5))
        let attempts: [[Effect]] = [
            drag(&d, "bob", "pad", .begin, nil),
            d.set("bob", "pad", .point(x: 1, y: nil)),
            d.send("bob", .step(control: "pad", thumb: nil, by: 1, byY: 1)),
        ]
        for effects in attempts {
            #expect(effects.rejects.map(\.code) == [.busy])
            #expect(effects.rejects.first?.holder == "ann")
        }
        _ = drag(&d, "ann", "pad", .cancel, nil)
        #expect(d.shown("pad") == .xy(x: 0, y: 20) && d.room.revision == 0)
    }

    @Test("an xy set takes {x, y}, either may be absent; each axis clamps and rounds as a slider's set")
    func padSet() {
        var d = driver()
        _ = d.set("ann", "pad", .point(x: 0.25, y: 443.7))
        #expect(d.state("pad") == .xy(x: 0.25, y: 444))
        _ = d.set("ann", "pad", .point(x: nil, y: 1e9))
        #expect(d.state("pad") == .xy(x: 0.25, y: 20000))
        _ = d.set("ann", "pad", .point(x: -3, y: nil))
        #expect(d.state("pad") == .xy(x: 0, y: 20000))
        #expect(d.set("ann", "pad", .point(x: nil, y: nil)).commits.isEmpty)
        for bad: SetValue in [.number(0.5), .flag(true), .text("0.5"), .other("array")] {
            #expect(d.set("ann", "pad", bad).rejects.map(\.code) == [.badValue], "\(bad)")
        }
        #expect(d.set("ann", "pad", .point(x: .nan, y: nil)).rejects.map(\.code) == [.badValue])
        #expect(d.set("ann", "cutoff", .point(x: 1, y: nil)).rejects.first?.message == "value must be a number, not object")
    }

    @Test("an xy step moves each axis as a slider steps; a single by is bad_value")
    func padStep() {
        var d = driver()
        _ = d.send("ann", .step(control: "grid", thumb: nil, by: 3, byY: -1))
        #expect(d.state("grid") == .xy(x: 3, y: 0))
        _ = d.send("ann", .step(control: "grid", thumb: "xy", by: 100, byY: 2))
        #expect(d.state("grid") == .xy(x: 10, y: 2))
        #expect(d.step("ann", "grid", by: 1).rejects.first?.message == "an xy pad steps by [nx, ny], not one number")
        #expect(d.send("ann", .step(control: "grid", thumb: nil, by: 1, byY: 0.5)).rejects.map(\.code) == [.badValue])
        #expect(d.send("ann", .step(control: "cutoff", thumb: nil, by: 1, byY: 1)).rejects.first?.message == "by must be a number, not array")
    }

    @Test("undo of an xy drag puts both axes back; redo puts them forward")
    func padUndo() {
        var d = driver()
        _ = drag(&d, "ann", "grid", .begin, .at(0.7, y: 0.2))
        _ = drag(&d, "ann", "grid", .end, nil)
        #expect(d.state("grid") == .xy(x: 7, y: 2))
        _ = d.send("ann", .undo)
        #expect(d.state("grid") == .xy(x: 0, y: 0))
        _ = d.send("ann", .redo)
        #expect(d.state("grid") == .xy(x: 7, y: 2))
    }

    // MARK: button

    @Test("every press is a commit and a revision, whatever positive by; set true presses too")
    func presses() {
        var d = driver()
        var effects = d.step("ann", "go", by: 1)
        #expect(effects.commits.map(\.state) == [.button(presses: 1)] && effects.commits.first?.revision == 1)
        effects = d.step("bob", "go", by: 5)
        #expect(effects.commits.map(\.state) == [.button(presses: 2)] && effects.commits.first?.by == "bob")
        effects = d.set("ann", "go", .flag(true))
        #expect(effects.commits.map(\.state) == [.button(presses: 3)] && d.room.revision == 3)
        effects = d.send("ann", .step(control: "go", thumb: "press", by: 1))
        #expect(d.state("go") == .button(presses: 4) && d.room.revision == 4)
    }

    @Test("a button refuses by 0 or below, set false, numbers and text; nothing changes")
    func badPresses() {
        var d = driver()
        let attempts: [[Effect]] = [
            d.step("ann", "go", by: 0), d.step("ann", "go", by: -1), d.step("ann", "go", by: 1.5),
            d.set("ann", "go", .flag(false)), d.set("ann", "go", .number(1)), d.set("ann", "go", .text("press")),
            d.send("ann", .step(control: "go", thumb: nil, by: 1, byY: 1)),
        ]
        for effects in attempts {
            #expect(effects.rejects.map(\.code) == [.badValue])
        }
        #expect(d.step("ann", "go", thumb: "value", by: 1).rejects.map(\.code) == [.unknownThumb])
        #expect(d.state("go") == .button(presses: 0) && d.room.revision == 0)
    }

    @Test("a press is not an edit: undo skips over it to the edit before, and a press does not clear redo")
    func pressesAreNotUndone() {
        var d = driver()
        _ = d.step("ann", "filter", by: 1)
        _ = d.step("ann", "go", by: 1)
        _ = d.send("ann", .undo)
        #expect(d.state("filter") == .toggle(on: false))
        #expect(d.state("go") == .button(presses: 1))
        _ = d.step("ann", "go", by: 1)
        _ = d.send("ann", .redo)
        #expect(d.state("filter") == .toggle(on: true) && d.state("go") == .button(presses: 2))
    }

    @Test("a batch sets toggles and pads but leaves buttons alone")
    func batchesSkipButtons() {
        var d = driver()
        let effects = d.send("ann", .batch(Batch(origin: "preset Warm", states: [
            "filter": .toggle(on: true), "pad": .xy(x: 0.5, y: 200), "go": .button(presses: 40),
        ])))
        #expect(Set(effects.commits.map(\.control)) == ["filter", "pad"])
        #expect(Set(effects.commits.map(\.revision)) == [1])
        #expect(d.state("go") == .button(presses: 0))
        #expect(!Self.schema.controls[2].takesBatches && Self.schema.controls[0].takesBatches)
    }

    // MARK: log slider

    @Test("a log slider's drag, set and step follow the log math and round to 3 digits")
    func logSlider() {
        var d = driver()
        _ = d.begin("ann", "cutoff", nil)
        _ = d.move("ann", "cutoff", nil, dx: 0.5)
        #expect(d.shown("cutoff") == .slider(value: 632))
        _ = d.end("ann", "cutoff", nil)
        #expect(d.state("cutoff") == .slider(value: 632))
        _ = d.set("ann", "cutoff", .number(443.7))
        #expect(d.state("cutoff") == .slider(value: 444))
        _ = d.step("ann", "cutoff", by: 10)
        #expect(d.state("cutoff") == .slider(value: 886)) // 444 × 1000^0.1 = 885.9
        _ = d.send("ann", .undo)
        #expect(d.state("cutoff") == .slider(value: 444))
    }

    @Test("a restored room keeps valid states of the new kinds and drops those that do not fit")
    func restore() {
        let room = Room(schema: Self.schema, committed: [.toggle(on: true), .xy(x: 2, y: 20), .button(presses: 9),
                                                         .slider(value: 1234), .xy(x: 3, y: 4)],
                        revisions: [1, 2, 3, 4, 5], revision: 5)
        #expect(room.committed == [.toggle(on: true), .xy(x: 0, y: 20), .button(presses: 9), .slider(value: 20), .xy(x: 3, y: 4)])
    }
}
