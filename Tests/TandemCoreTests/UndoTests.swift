import Testing
@testable import TandemCore

/// Undo and redo of one's own gestures, sets and steps.
@Suite("Undo and redo")
struct UndoTests {
    static let gainAtStart = ControlState.slider(value: 0.5)

    private func twoPeople(_ schema: RoomSchema = .demo) -> RoomDriver {
        var d = RoomDriver(schema, limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        d.join("ann"); d.join("ben")
        return d
    }

    @Test("undo of a released drag restores the value before the drag in one step, however many moves it had")
    func undoReleasedDrag() {
        var d = twoPeople()
        _ = d.begin("ann", "gain", nil)
        for dx in stride(from: 0.02, through: 0.3, by: 0.02) { _ = d.move("ann", "gain", nil, dx: dx) }
        _ = d.end("ann", "gain", nil)
        let dragged = d.state("gain")
        #expect(dragged != Self.gainAtStart)
        let revision = d.room.revision

        let undone = d.send("ann", .undo)
        #expect(undone.commits.count == 1)
        #expect(undone.commits.first?.by == "ann")
        #expect(undone.rejects.isEmpty)
        #expect(d.state("gain") == Self.gainAtStart)
        #expect(d.room.revision == revision + 1)

        let redone = d.send("ann", .redo)
        #expect(redone.commits.map(\.state) == [dragged])
        #expect(d.state("gain") == dragged)
    }

    @Test("the other person sees the undo as a change committed by the one who undid")
    func othersSeeTheUndo() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.8))
        _ = d.drain("ben")
        _ = d.send("ann", .undo)
        let changes = d.drain("ben").compactMap { if case let .update(u) = $0 { u } else { nil } }.flatMap(\.changes)
        #expect(changes.count == 1)
        #expect(changes.first?.state == Self.gainAtStart)
        #expect(changes.first?.by == "ann")
    }

    @Test("a set and a step are undone and redone one at a time, newest first")
    func undoSetAndStep() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        let gainSet = d.state("gain")
        _ = d.step("ann", "size", by: 1)
        #expect(d.state("size") == .snap(index: 3, value: 80))

        _ = d.send("ann", .undo)
        #expect(d.state("size") == .snap(index: 2, value: 60))
        #expect(d.state("gain") == gainSet)
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == Self.gainAtStart)
        _ = d.send("ann", .redo)
        #expect(d.state("gain") == gainSet)
        #expect(d.state("size") == .snap(index: 2, value: 60))
        _ = d.send("ann", .redo)
        #expect(d.state("size") == .snap(index: 3, value: 80))
    }

    @Test("undo commits push no new undo entries: a second undo goes one edit further back")
    func undoDoesNotRecordItself() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        let first = d.state("gain")
        _ = d.set("ann", "gain", .number(0.3))
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == first)
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == Self.gainAtStart)
    }

    @Test("a live-mode gesture is one edit from its begin to its last position, whether it ends or is cancelled")
    func liveGestureIsOneStep() throws {
        let schema = try RoomSchema(validating: RoomDefinition(id: "live", controls: [
            ControlDefinition(id: "level", type: "slider", commit: "live", min: 0, max: 10, step: 1,
                              state: StateDefinition(value: 2)),
        ]))
        for last in [DragPhase.end, .cancel] {
            var d = twoPeople(schema)
            _ = d.begin("ann", "level", nil)
            var commits = 0
            for dx in [0.1, 0.3, 0.5, 0.7] { commits += d.move("ann", "level", nil, dx: dx).commits.count }
            #expect(commits == 4)
            _ = d.send("ann", .drag(control: "level", thumb: nil, phase: last, pointer: nil))
            #expect(d.state("level") == .slider(value: 9))

            let undone = d.send("ann", .undo)
            #expect(undone.commits.map(\.state) == [.slider(value: 2)], "\(last)")
            #expect(d.send("ann", .undo).commits.isEmpty)
            _ = d.send("ann", .redo)
            #expect(d.state("level") == .slider(value: 9))
        }
    }

    @Test("a released drag that ends where it began, or is cancelled, is nothing to undo")
    func unchangedDragRecordsNothing() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        _ = d.begin("ann", "size", nil)
        _ = d.move("ann", "size", nil, dx: 0.5)
        _ = d.cancel("ann", "size", nil)
        _ = d.begin("ann", "size", nil)
        _ = d.move("ann", "size", nil, dx: 0.5)
        _ = d.end("ann", "size", nil, dx: 0)
        #expect(d.state("size") == .snap(index: 2, value: 60))
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == Self.gainAtStart)
        #expect(d.state("size") == .snap(index: 2, value: 60))
    }

    @Test("undo of a whole-colour set restores all three channels")
    func undoWholeColour() {
        var d = twoPeople()
        let before = d.state("color")
        _ = d.set("ann", "color", .text("#FF8800"))
        #expect(d.state("color") != before)
        let undone = d.send("ann", .undo)
        #expect(undone.commits.count == 1)
        #expect(d.state("color") == before)
        _ = d.send("ann", .redo)
        #expect(d.state("color") == .color(RGB(red: 1, green: 136.0 / 255, blue: 0)))
    }

    @Test("undo of a channel set touches only that channel, not one someone else changed since")
    func undoOneChannel() {
        var d = twoPeople()
        _ = d.set("ann", "color", thumb: "red", .number(1))
        _ = d.set("ben", "color", thumb: "blue", .number(0))
        _ = d.send("ann", .undo)
        #expect(d.state("color") == .color(RGB(red: 0x33 / 255.0, green: 0x66 / 255.0, blue: 0)))
    }

    static let wide: RoomSchema = try! RoomSchema(validating: RoomDefinition(id: "wide", controls: [
        ControlDefinition(id: "r", type: "range", scale: [0, 9], state: StateDefinition(lower: 5, upper: 8)),
    ]))

    @Test("undo only moves my thumb of a range when someone else moved the other one meanwhile")
    func undoTouchesOnlyMyThumb() {
        var d = twoPeople(Self.wide)
        _ = d.set("ann", "r", thumb: "lower", .number(1))
        _ = d.set("ben", "r", thumb: "upper", .number(6))
        _ = d.send("ann", .undo)
        #expect(d.state("r") == rangeState(5, 6))
    }

    @Test("an undo that would cross the other thumb is clamped like a drag, so the range keeps its gap")
    func undoKeepsInvariants() {
        var d = twoPeople(Self.wide)
        _ = d.set("ann", "r", thumb: "lower", .number(1))
        _ = d.set("ben", "r", thumb: "upper", .number(4))
        #expect(d.state("r") == rangeState(1, 4))
        let undone = d.send("ann", .undo)
        #expect(d.state("r") == rangeState(3, 4))
        #expect(undone.commits.first?.by == "ann")
        #expect(d.room.schema.controls[0].isValid(d.state("r")))
        // Ben's own undo brings his thumb back; Ann's redo puts hers where she set it.
        _ = d.send("ben", .undo)
        #expect(d.state("r") == rangeState(3, 8))
        _ = d.send("ann", .redo)
        #expect(d.state("r") == rangeState(1, 8))
    }

    @Test("undo of a thumb someone holds is busy with the holder, and the history stays as it was")
    func undoOfHeldThumbIsBusy() throws {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        let gainSet = d.state("gain")
        _ = d.begin("ben", "gain", nil)
        let effects = d.send("ann", .undo)
        let reject = try #require(effects.rejects.first)
        #expect(reject.code == .busy)
        #expect(reject.holder == "ben")
        #expect(effects.commits.isEmpty)
        #expect(d.state("gain") == gainSet)
        #expect(d.room.members["ann"]?.history.undoStack.count == 1)
        #expect(d.room.members["ann"]?.history.redoStack.isEmpty == true)

        _ = d.cancel("ben", "gain", nil)
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == Self.gainAtStart)
        // The holder is busy too, as for a set of a thumb one holds.
        _ = d.begin("ann", "gain", nil)
        #expect(d.send("ann", .redo).rejects.first?.holder == "ann")
    }

    @Test("nothing to undo or redo is acknowledged with no reject and no revision")
    func nothingToUndo() {
        var d = twoPeople()
        let revision = d.room.revision
        #expect(d.send("ann", .undo) == [.ack(client: "ann", seq: 1)])
        #expect(d.send("ann", .redo) == [.ack(client: "ann", seq: 2)])
        #expect(d.room.revision == revision)
        // Ben's edit is not Ann's to undo.
        _ = d.set("ben", "gain", .number(0.9))
        #expect(d.send("ann", .undo) == [.ack(client: "ann", seq: 3)])
    }

    @Test("an undo whose result is already the committed state makes no revision, but still moves the edit to redo")
    func undoToSameStateMakesNoRevision() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        let gainSet = d.state("gain")
        _ = d.set("ben", "gain", .number(0.5))
        let revision = d.room.revision
        #expect(d.send("ann", .undo).commits.isEmpty)
        #expect(d.room.revision == revision)
        _ = d.send("ann", .redo)
        #expect(d.state("gain") == gainSet)
    }

    @Test("a new edit clears what could be redone")
    func newEditClearsRedo() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        _ = d.send("ann", .undo)
        _ = d.set("ann", "gain", .number(0.3))
        let latest = d.state("gain")
        #expect(d.send("ann", .redo).commits.isEmpty)
        #expect(d.state("gain") == latest)
        #expect(d.room.members["ann"]?.history.redoStack.isEmpty == true)
    }

    @Test("the undo and redo stacks keep the newest 50 edits each")
    func stacksAreBounded() {
        var d = twoPeople()
        var values: [ControlState] = [d.state("gain")]
        for k in 1...60 {
            _ = d.set("ann", "gain", .number(Double(k) / 100))
            values.append(d.state("gain"))
        }
        #expect(d.room.members["ann"]?.history.undoStack.count == 50)
        var undoCommits = 0
        for _ in 1...60 { undoCommits += d.send("ann", .undo).commits.count }
        #expect(undoCommits == 50)
        #expect(d.state("gain") == values[10])
        #expect(d.room.members["ann"]?.history.undoStack.isEmpty == true)
        #expect(d.room.members["ann"]?.history.redoStack.count == 50)
        for _ in 1...60 { _ = d.send("ann", .redo) }
        #expect(d.state("gain") == values[60])
    }

    @Test("each person's history is their own, and goes when they leave")
    func historyIsPerMember() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        _ = d.set("ben", "size", .number(100))
        _ = d.send("ben", .undo)
        #expect(d.state("size") == .snap(index: 2, value: 60))
        #expect(d.state("gain") != Self.gainAtStart)
        _ = d.room.leave("ann", at: d.now)
        d.join("ann")
        #expect(d.send("ann", .undo).commits.isEmpty)
    }

    @Test("undo of a gauge set restores its value")
    func undoGaugeSet() {
        var d = twoPeople()
        let before = d.state("bpm")
        _ = d.set("ann", "bpm", .number(120))
        _ = d.send("ann", .undo)
        #expect(d.state("bpm") == before)
    }

    @Test("the HTTP API, which is not a member, cannot undo; a viewer may not")
    func apiAndViewerCannotUndo() {
        var d = twoPeople()
        _ = d.room.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.9))), from: "api", at: d.now)
        let effects = d.room.apply(ClientMessage(seq: 2, .undo), from: "api", at: d.now)
        #expect(effects.rejects.map(\.code) == [.badMessage])
        #expect(effects.rejects.first?.message.contains("undo needs a connection") == true)
        #expect(d.state("gain") == .slider(value: 0.9))

        d.join("val", role: .viewer)
        #expect(d.send("val", .undo).rejects.map(\.code) == [.forbidden])
    }
}
