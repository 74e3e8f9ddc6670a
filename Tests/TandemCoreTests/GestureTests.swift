import Testing
@testable import TandemCore

@Suite("Gestures")
struct GestureTests {
    @Test("a drag previews without committing, and the release commits as a new revision")
    func dragPreviewsThenCommits() {
        var d = RoomDriver()
        d.join("c1"); d.join("c2")
        #expect(d.begin("c1", "blanks", "upper").gestures.map(\.phase) == [.begin])
        let moved = d.move("c1", "blanks", "upper", dx: 1.0 / 9)
        #expect(moved.gestures.map(\.state) == [rangeState(0, 2)])
        #expect(d.state("blanks") == rangeState(0, 1))
        #expect(d.shown("blanks") == rangeState(0, 2))
        #expect(d.room.revision == 0)
        let ended = d.end("c1", "blanks", "upper")
        #expect(ended.commits.map(\.state) == [rangeState(0, 2)])
        #expect(ended.commits.map(\.revision) == [1])
        #expect(ended.gestures.map(\.phase) == [.end])
        #expect(d.state("blanks") == rangeState(0, 2))
        #expect(d.room.revisions[1] == 1)
    }

    @Test("dx is the total translation since begin and is never accumulated twice")
    func dxIsNotAccumulated() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.begin("c1", "gain", nil)
        _ = d.move("c1", "gain", nil, dx: 0.25)
        _ = d.move("c1", "gain", nil, dx: 0.25)
        #expect(d.shown("gain") == .slider(value: 0.75))
        _ = d.move("c1", "gain", nil, dx: -0.1)
        #expect(d.shown("gain") == .slider(value: 0.4))
        _ = d.move("c1", "gain", nil, dx: 9)
        #expect(d.shown("gain") == .slider(value: 1))
    }

    @Test("a begin with at jumps to the press point, and later dx counts from there")
    func beginAtJumps() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.begin("c1", "size", nil, at: 0.8)
        #expect(d.shown("size") == .snap(index: 3, value: 80))
        _ = d.move("c1", "size", nil, dx: 0.1)
        #expect(d.shown("size") == .snap(index: 4, value: 100))
        _ = d.send("c1", .drag(control: "size", thumb: nil, phase: .move, pointer: .at(0.1)))
        #expect(d.shown("size") == .snap(index: 0, value: 20))
        _ = d.end("c1", "size", nil)
        #expect(d.state("size") == .snap(index: 0, value: 20))
    }

    @Test("end with dx commits that position; end without commits the last preview")
    func endCommitsLastOrGivenPosition() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.begin("c1", "gain", nil)
        _ = d.move("c1", "gain", nil, dx: 0.2)
        _ = d.end("c1", "gain", nil, dx: 0.3)
        #expect(d.state("gain") == .slider(value: 0.8))
        _ = d.begin("c1", "gain", nil)
        _ = d.move("c1", "gain", nil, dx: -0.5)
        _ = d.end("c1", "gain", nil)
        #expect(d.state("gain") == .slider(value: 0.3))
        #expect(d.room.revision == 2)
    }

    @Test("cancel restores the committed value for everyone")
    func cancelRestores() {
        var d = RoomDriver()
        d.join("c1"); d.join("c2")
        _ = d.begin("c1", "color", "red")
        _ = d.move("c1", "color", "red", dx: 0.5)
        #expect(d.shown("color") != d.state("color"))
        let cancelled = d.cancel("c1", "color", "red")
        #expect(cancelled.commits.isEmpty)
        #expect(cancelled.gestures.map(\.phase) == [.cancel])
        #expect(cancelled.gestures.first?.state == d.state("color"))
        #expect(d.shown("color") == d.state("color"))
        #expect(d.room.revision == 0)
        #expect(d.begin("c2", "color", "red").rejects.isEmpty, "the thumb is free again")
    }

    @Test("a disconnect mid-drag cancels the drag for everyone and frees the thumb")
    func disconnectCancels() {
        var d = RoomDriver()
        d.join("c1"); d.join("c2")
        _ = d.begin("c1", "blanks", "lower")
        _ = d.begin("c1", "gain", nil)
        _ = d.move("c1", "gain", nil, dx: 0.3)
        let left = d.room.leave("c1", at: d.now)
        #expect(left.gestures.map(\.phase) == [.cancel, .cancel])
        #expect(left.contains(.left("c1")))
        #expect(d.shown("gain") == .slider(value: 0.5))
        #expect(d.begin("c2", "gain", nil).rejects.isEmpty)
    }

    @Test("a hold lapses 10 s after the last message on its gesture, and a repeated move keeps it")
    func holdLapses() {
        var d = RoomDriver()
        d.join("c1"); d.join("c2")
        _ = d.begin("c1", "gain", nil)
        _ = d.move("c1", "gain", nil, dx: 0.2)
        d.advance(seconds: 6)
        _ = d.move("c1", "gain", nil, dx: 0.2) // the keep-alive a still press sends
        d.advance(seconds: 9.9)
        #expect(d.begin("c2", "gain", nil).rejects.map(\.code) == [.busy])
        #expect(d.room.nextLapse == d.now.adding(seconds: 0.1))
        d.advance(seconds: 0.1)
        let lapsed = d.room.expire(at: d.now)
        #expect(lapsed.gestures.map(\.phase) == [.cancel])
        #expect(lapsed.gestures.first?.by == "c1")
        #expect(d.shown("gain") == .slider(value: 0.5))
        #expect(d.end("c1", "gain", nil).rejects.map(\.code) == [.noGesture])
        #expect(d.room.revision == 0)
    }

    @Test("a message on one gesture does not keep another gesture's hold")
    func holdsLapseSeparately() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.begin("c1", "blanks", "lower")
        _ = d.begin("c1", "blanks", "upper")
        d.advance(seconds: 8)
        _ = d.move("c1", "blanks", "upper", dx: 0.2)
        d.advance(seconds: 2)
        #expect(d.move("c1", "blanks", "lower", dx: 0).rejects.map(\.code) == [.noGesture])
        #expect(d.move("c1", "blanks", "upper", dx: 0.3).rejects.isEmpty)
    }

    @Test("a second begin from the holder restarts its gesture")
    func beginAgainRestarts() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.begin("c1", "gain", nil)
        _ = d.move("c1", "gain", nil, dx: 0.3)
        let again = d.begin("c1", "gain", nil)
        #expect(again.gestures.map(\.phase) == [.cancel, .begin])
        _ = d.move("c1", "gain", nil, dx: -0.1)
        #expect(d.shown("gain") == .slider(value: 0.4))
    }

    @Test("in live commit mode every move commits and a cancel keeps what was committed")
    func liveModeCommitsEveryMove() throws {
        let schema = try RoomSchema(validating: RoomDefinition(id: "live", controls: [
            ControlDefinition(id: "level", type: "slider", commit: "live", min: 0, max: 10, step: 1),
        ]))
        var d = RoomDriver(schema)
        d.join("c1")
        _ = d.begin("c1", "level", nil)
        #expect(d.move("c1", "level", nil, dx: 0.3).commits.map(\.state) == [.slider(value: 3)])
        #expect(d.move("c1", "level", nil, dx: 0.31).commits.isEmpty, "same snapped value: no revision")
        #expect(d.move("c1", "level", nil, dx: 0.5).commits.map(\.revision) == [2])
        _ = d.cancel("c1", "level", nil)
        #expect(d.state("level") == .slider(value: 5))
        #expect(d.room.revision == 2)
    }

    @Test("a drag released where it began, or a step at the end, makes no revision but is acked")
    func noOpsMakeNoRevision() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.begin("c1", "gain", nil)
        #expect(d.end("c1", "gain", nil).commits.isEmpty)
        _ = d.set("c1", "size", .number(100))
        let atEnd = d.step("c1", "size", by: 5)
        #expect(atEnd.commits.isEmpty)
        #expect(atEnd.contains(.ack(client: "c1", seq: 4)))
        #expect(d.room.revision == 1)
    }

    @Test("set follows the protocol: nearest snap value with ties up, range clamp, slider snap, hex colour")
    func setRules() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.set("c1", "size", .number(50))
        #expect(d.state("size") == .snap(index: 2, value: 60))
        _ = d.set("c1", "size", .number(-1000))
        #expect(d.state("size") == .snap(index: 0, value: 20))
        _ = d.set("c1", "blanks", thumb: "upper", .number(7))
        #expect(d.state("blanks") == rangeState(0, 3))
        _ = d.set("c1", "blanks", thumb: "lower", .number(2.5))
        #expect(d.state("blanks") == rangeState(2, 3))
        _ = d.set("c1", "blanks", thumb: "lower", .number(9))
        #expect(d.state("blanks") == rangeState(2, 3))
        _ = d.set("c1", "gain", .number(0.126))
        #expect(d.state("gain") == .slider(value: 0.13))
        _ = d.set("c1", "color", .text("#ff8800"))
        #expect(d.state("color") == .color(RGB(red: 1, green: 136.0 / 255, blue: 0)))
        _ = d.set("c1", "color", thumb: "blue", .number(1.5))
        #expect(d.state("color") == .color(RGB(red: 1, green: 136.0 / 255, blue: 1)))
        _ = d.set("c1", "bpm", .number(-5))
        #expect(d.state("bpm") == .gauge(value: -5, fraction: 0))
    }

    @Test("step moves by whole steps and stops at either end")
    func stepRules() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.step("c1", "size", by: -1)
        #expect(d.state("size") == .snap(index: 1, value: 40))
        _ = d.step("c1", "size", by: 10)
        #expect(d.state("size") == .snap(index: 4, value: 100))
        _ = d.step("c1", "blanks", thumb: "upper", by: 1)
        #expect(d.state("blanks") == rangeState(0, 2))
        _ = d.step("c1", "blanks", thumb: "lower", by: 5)
        #expect(d.state("blanks") == rangeState(1, 2))
        _ = d.step("c1", "gain", by: 1)
        #expect(d.state("gain") == .slider(value: 0.51))
        _ = d.step("c1", "gain", by: -1000)
        #expect(d.state("gain") == .slider(value: 0))
        _ = d.step("c1", "color", thumb: "red", by: 1)
        #expect(d.state("color") == .color(RGB(red: 52.0 / 255, green: 0.4, blue: 0.6)))
    }

    @Test("one client may hold several thumbs at once")
    func multiTouch() {
        var d = RoomDriver()
        d.join("c1")
        #expect(d.begin("c1", "color", "red").rejects.isEmpty)
        #expect(d.begin("c1", "color", "blue").rejects.isEmpty)
        _ = d.move("c1", "color", "red", dx: 1)
        _ = d.move("c1", "color", "blue", dx: -1)
        #expect(d.shown("color") == .color(RGB(red: 1, green: 0.4, blue: 0)))
        _ = d.end("c1", "color", "red")
        _ = d.end("c1", "color", "blue")
        #expect(d.state("color") == .color(RGB(red: 1, green: 0.4, blue: 0)))
        #expect(d.room.revision == 2)
    }
}

@Suite("Two people on one range")
struct ContendedRangeTests {
    /// scale 0–9, operable 0–9, minGap 1, starting at lower 5, upper 8.
    private func wideRange() throws -> RoomDriver {
        let schema = try RoomSchema(validating: RoomDefinition(id: "wide", controls: [
            ControlDefinition(id: "r", type: "range", scale: [0, 9], state: StateDefinition(lower: 5, upper: 8)),
        ]))
        var d = RoomDriver(schema)
        d.join("ann"); d.join("ben")
        return d
    }

    @Test("a preview is clamped against another person's preview")
    func previewsClampAgainstEachOther() throws {
        var d = try wideRange()
        _ = d.begin("ann", "r", "lower")
        _ = d.move("ann", "r", "lower", dx: -4.0 / 9) // lower 1
        _ = d.begin("ben", "r", "upper")
        _ = d.move("ben", "r", "upper", dx: -7.0 / 9) // upper wants 1, held at lower+1
        #expect(d.shown("r") == rangeState(1, 2))
        #expect(d.state("r") == rangeState(5, 8))
    }

    @Test("when a preview is cancelled, the other preview is re-evaluated from its own pointer")
    func cancelReevaluatesOthers() throws {
        var d = try wideRange()
        _ = d.begin("ann", "r", "lower")
        _ = d.move("ann", "r", "lower", dx: -4.0 / 9)
        _ = d.begin("ben", "r", "upper")
        _ = d.move("ben", "r", "upper", dx: -6.0 / 9) // upper 2
        #expect(d.shown("r") == rangeState(1, 2))
        let cancelled = d.cancel("ann", "r", "lower")
        // lower is back at 5, so ben's upper (pointer at 2) is pushed to 6.
        #expect(d.shown("r") == rangeState(5, 6))
        #expect(cancelled.gestures.map(\.by) == ["ben", "ann"])
        #expect(cancelled.gestures.last?.phase == .cancel)
    }

    @Test("a commit is clamped against committed state and other previews follow it")
    func commitClampsAndOthersFollow() throws {
        var d = try wideRange()
        _ = d.begin("ben", "r", "upper")
        _ = d.move("ben", "r", "upper", dx: 1.0 / 9) // upper 9
        _ = d.begin("ann", "r", "lower")
        _ = d.move("ann", "r", "lower", dx: 3.0 / 9) // wants 8, fits under ben's 9
        #expect(d.shown("r") == rangeState(8, 9))
        let ended = d.end("ann", "r", "lower")
        // Against the committed upper 8, the lower may reach only 7.
        #expect(ended.commits.map(\.state) == [rangeState(7, 8)])
        #expect(d.shown("r") == rangeState(7, 9))
        _ = d.move("ben", "r", "upper", dx: -7.0 / 9) // wants 1, held at 7+1
        #expect(d.shown("r") == rangeState(7, 8))
        _ = d.end("ben", "r", "upper")
        #expect(d.state("r") == rangeState(7, 8))
    }

    @Test("a set of the other thumb re-evaluates a live preview")
    func setReevaluatesPreview() throws {
        var d = try wideRange()
        _ = d.begin("ben", "r", "upper")
        _ = d.move("ben", "r", "upper", dx: -2.0 / 9) // upper 6
        let set = d.set("ann", "r", thumb: "lower", .number(7))
        #expect(set.commits.map(\.state) == [rangeState(7, 8)])
        #expect(d.shown("r") == rangeState(7, 8))
        #expect(set.gestures.map(\.by) == ["ben"])
    }
}
