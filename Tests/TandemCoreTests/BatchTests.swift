import Testing
@testable import TandemCore

/// Batches (`Operation.batch`): several controls committed as ONE room
/// revision, as a preset's recall or a restored moment commits them.
@Suite("Batches")
struct BatchTests {
    /// Every settable control of the demo moved away from its initial state, and the gauge too.
    static let warm: [String: ControlState] = [
        "size": .snap(index: 4, value: 100),
        "blanks": rangeState(2, 3),
        "color": .color(RGB(red: 1, green: 0.5019607843137255, blue: 0)),
        "gain": .slider(value: 0.8),
        "bpm": .gauge(value: 120, fraction: 120.0 / 170),
    ]

    private func twoPeople() -> RoomDriver {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        d.join("ann"); d.join("ben")
        _ = d.drain("ann"); _ = d.drain("ben")
        return d
    }

    private func batch(_ states: [String: ControlState], origin: String = "preset Warm") -> Operation {
        .batch(Batch(origin: origin, states: states))
    }

    private func updates(_ frames: [Frame]) -> [Update] {
        frames.compactMap { if case let .update(u) = $0 { u } else { nil } }
    }

    @Test("a batch commits every control it changes as one revision, one commit effect each at that revision")
    func oneRevision() {
        var d = twoPeople()
        let before = d.room.revision
        let effects = d.send("ann", batch(Self.warm))
        #expect(effects.rejects.isEmpty)
        #expect(d.room.revision == before + 1)
        let commits = effects.commits
        #expect(Set(commits.map(\.control)) == ["size", "blanks", "color", "gain"])
        #expect(commits.count == 4)
        #expect(commits.allSatisfy { $0.revision == before + 1 && $0.by == "ann" })
        for control in ["size", "blanks", "color", "gain"] {
            #expect(d.state(control) == Self.warm[control])
            #expect(d.room.revisions[d.room.schema.index(of: control)!] == before + 1)
        }
    }

    @Test("a batch leaves gauges alone, whatever state it carries for them")
    func gaugesUntouched() {
        var d = twoPeople()
        let bpm = d.state("bpm")
        let effects = d.send("ann", batch(Self.warm))
        #expect(!effects.commits.contains { $0.control == "bpm" })
        #expect(d.state("bpm") == bpm)
        #expect(d.room.revisions[d.room.schema.index(of: "bpm")!] == 0)
    }

    @Test("controls whose state equals the committed one are not committed again")
    func unchangedControlsAreLeftOut() {
        var d = twoPeople()
        var states = Self.warm
        states["gain"] = d.state("gain")
        states["size"] = d.state("size")
        let effects = d.send("ann", batch(states))
        #expect(Set(effects.commits.map(\.control)) == ["blanks", "color"])
        #expect(d.room.revisions[d.room.schema.index(of: "gain")!] == 0)
    }

    @Test("states that do not fit their control, and unknown controls, are skipped; the rest is committed")
    func misfitsAreSkipped() {
        var d = twoPeople()
        let effects = d.send("ann", batch([
            "gain": .slider(value: 7),                  // beyond max
            "size": .slider(value: 0.5),                // another kind's state
            "blanks": rangeState(0, 7),                 // beyond operable
            "volume": .slider(value: 0.5),              // no such control
            "color": .color(RGB(red: 0, green: 0, blue: 1)),
        ]))
        #expect(effects.rejects.isEmpty)
        #expect(effects.commits.map(\.control) == ["color"])
        #expect(d.state("gain") == .slider(value: 0.5))
        #expect(d.state("size") == .snap(index: 2, value: 60))
        #expect(d.state("blanks") == rangeState(0, 1))
        #expect(d.state("color") == .color(RGB(red: 0, green: 0, blue: 1)))
        #expect(d.room.revision == 1)
    }

    @Test("a batch that changes nothing makes no revision and is only acknowledged")
    func nothingToChange() {
        var d = twoPeople()
        let states = Dictionary(uniqueKeysWithValues: d.room.schema.controls.map { ($0.id, d.state($0.id)) })
        let effects = d.send("ann", batch(states))
        #expect(effects.commits.isEmpty && effects.rejects.isEmpty)
        #expect(effects.contains(.ack(client: "ann", seq: 1)))
        #expect(d.room.revision == 0)
        #expect(d.send("ann", batch([:])).commits.isEmpty)
    }

    @Test("a batch touching a held control is refused busy, naming the holder, and changes nothing")
    func busyWhileHeld() {
        var d = twoPeople()
        _ = d.begin("ben", "blanks", "upper")
        _ = d.move("ben", "blanks", "upper", dx: 0.3)
        let committed = d.room.committed
        let shown = (0..<5).map { d.shown(d.room.schema.controls[$0].id) }
        let revision = d.room.revision
        let effects = d.send("ann", batch(Self.warm))
        #expect(effects.rejects.map(\.code) == [.busy])
        #expect(effects.rejects.first?.holder == "ben")
        #expect(effects.rejects.first?.message.contains("blanks") == true)
        #expect(effects.commits.isEmpty)
        #expect(d.room.committed == committed)
        #expect(d.room.revision == revision)
        #expect((0..<5).map { d.shown(d.room.schema.controls[$0].id) } == shown)
        // Nothing was recorded: ann has nothing to undo.
        #expect(d.send("ann", .undo).commits.isEmpty)
    }

    @Test("a held control the batch would not change does not block it")
    func heldButUnchanged() {
        var d = twoPeople()
        _ = d.begin("ben", "gain", nil)
        var states = Self.warm
        states["gain"] = d.state("gain")
        let effects = d.send("ann", batch(states))
        #expect(effects.rejects.isEmpty)
        #expect(Set(effects.commits.map(\.control)) == ["size", "blanks", "color"])
    }

    @Test("a gauge held by nobody and a gauge in the batch never make it busy")
    func gaugesNeverBlock() {
        var d = twoPeople()
        _ = d.set("ben", "bpm", .number(90))
        let effects = d.send("ann", batch(["bpm": .gauge(value: 1, fraction: 0), "gain": .slider(value: 0.1)]))
        #expect(effects.rejects.isEmpty)
        #expect(effects.commits.map(\.control) == ["gain"])
    }

    @Test("every member gets the whole batch in ONE frame, every change at the batch's revision")
    func oneFramePerMember() {
        var d = twoPeople()
        _ = d.send("ann", batch(Self.warm))
        let revision = d.room.revision
        for member in ["ann", "ben"] as [ClientID] {
            let frames = d.drain(member)
            let all = updates(frames)
            #expect(frames.count == 1, "\(member) got \(frames.count) frames")
            let changes = all.flatMap(\.changes)
            #expect(Set(changes.map(\.control)) == ["size", "blanks", "color", "gain"])
            #expect(changes.allSatisfy { $0.revision == revision && $0.by == "ann" })
            #expect(all.first?.revision == revision)
        }
        #expect(updates(d.drain("ann")).isEmpty)
    }

    @Test("undo reverts the whole batch as one revision, redo re-applies it as one")
    func undoAndRedo() {
        var d = twoPeople()
        let initial = d.room.committed
        _ = d.send("ann", batch(Self.warm))
        let recalled = d.room.committed
        _ = d.drain("ben")

        let undone = d.send("ann", .undo)
        #expect(undone.rejects.isEmpty)
        #expect(d.room.committed == initial)
        #expect(Set(undone.commits.map(\.revision)) == [d.room.revision])
        #expect(undone.commits.count == 4)
        #expect(d.room.revision == 2)
        let benFrames = d.drain("ben")
        #expect(benFrames.count == 1)
        #expect(Set(updates(benFrames).flatMap(\.changes).map(\.control)) == ["size", "blanks", "color", "gain"])

        let redone = d.send("ann", .redo)
        #expect(redone.rejects.isEmpty)
        #expect(d.room.committed == recalled)
        #expect(Set(redone.commits.map(\.revision)) == [3])
        #expect(d.room.revision == 3)
    }

    @Test("undo of a batch is refused busy while someone holds a control it touched, and the history stays")
    func undoWhileHeld() {
        var d = twoPeople()
        _ = d.send("ann", batch(Self.warm))
        let recalled = d.room.committed
        _ = d.begin("ben", "gain", nil)
        let refused = d.send("ann", .undo)
        #expect(refused.rejects.map(\.code) == [.busy])
        #expect(refused.rejects.first?.holder == "ben")
        #expect(d.room.committed == recalled)
        _ = d.cancel("ben", "gain", nil)
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == .slider(value: 0.5))
        #expect(d.state("blanks") == rangeState(0, 1))
    }

    @Test("a range moved by a batch comes back whole on undo and redo, whichever way its thumbs went")
    func rangeBothThumbs() {
        // Upward (0,1) → (2,3) and downward (2,3) → (0,1): one order of the
        // thumbs blocks the other unless both reach their places.
        for (from, to) in [(rangeState(0, 1), rangeState(2, 3)), (rangeState(2, 3), rangeState(0, 1)),
                           (rangeState(0, 1), rangeState(2, 3)), (rangeState(1, 2), rangeState(0, 3))] {
            var d = twoPeople()
            _ = d.send("ben", batch(["blanks": from]))
            #expect(d.state("blanks") == from)
            _ = d.send("ann", batch(["blanks": to]))
            #expect(d.state("blanks") == to)
            _ = d.send("ann", .undo)
            #expect(d.state("blanks") == from, "undo \(from) → \(to)")
            _ = d.send("ann", .redo)
            #expect(d.state("blanks") == to, "redo \(from) → \(to)")
        }
    }

    @Test("a batch is one step of the undo history among the sender's other edits")
    func oneStepAmongOthers() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.2))
        _ = d.send("ann", batch(Self.warm))
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == .slider(value: 0.2))
        #expect(d.state("size") == .snap(index: 2, value: 60))
        _ = d.send("ann", .undo)
        #expect(d.state("gain") == .slider(value: 0.5))
    }

    @Test("a viewer's batch is forbidden and changes nothing")
    func viewerForbidden() {
        var d = RoomDriver()
        d.join("vic", role: .viewer)
        let effects = d.send("vic", batch(Self.warm))
        #expect(effects.rejects.map(\.code) == [.forbidden])
        #expect(effects.commits.isEmpty)
        #expect(d.room.revision == 0)
        #expect(effects.contains(.ack(client: "vic", seq: 1)))
    }

    @Test("a batch from the HTTP API (not a member) commits and records no history")
    func fromTheAPI() {
        var d = twoPeople()
        let effects = d.room.apply(ClientMessage(seq: 1, batch(Self.warm)), from: "api", at: d.now)
        #expect(effects.commits.count == 4)
        #expect(d.room.revision == 1)
        #expect(d.updatesOf("ben").count == 1)
    }

    @Test("a batch over the rate limit is rate_limited and changes nothing")
    func rateLimited() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 1))
        d.join("ann")
        _ = d.set("ann", "gain", .number(0.1))
        let effects = d.send("ann", batch(Self.warm))
        #expect(effects.rejects.map(\.code) == [.rateLimited])
        #expect(d.state("size") == .snap(index: 2, value: 60))
    }

    @Test("a live preview on a control the batch leaves out is kept as it was")
    func previewsElsewhereKept() {
        var d = twoPeople()
        _ = d.begin("ben", "gain", nil)
        _ = d.move("ben", "gain", nil, dx: 0.1)
        let preview = d.shown("gain")
        #expect(preview != d.state("gain"))
        var states = Self.warm
        states.removeValue(forKey: "gain")
        #expect(d.send("ann", batch(states)).rejects.isEmpty)
        #expect(d.shown("gain") == preview)
        _ = d.end("ben", "gain", nil)
        #expect(d.state("gain") == preview)
    }
}

/// Batches over the v1.1 kinds: a synth room as a preset's recall meets it.
@Suite("Batches of the v1.1 kinds")
struct KindBatchTests {
    static let synth: RoomSchema = {
        do {
            return try RoomSchema(validating: RoomDefinition(id: "synth", controls: [
                ControlDefinition(id: "filter", type: "toggle"),
                ControlDefinition(id: "pad", type: "xy", x: AxisDefinition(min: 0, max: 10, step: 1),
                                  y: AxisDefinition(min: 0, max: 10, step: 1)),
                ControlDefinition(id: "go", type: "button"),
                ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
            ]))
        } catch {
            fatalError("\(error)")
        }
    }()

    private func driver() -> RoomDriver {
        var d = RoomDriver(Self.synth, limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        d.join("ann"); d.join("ben")
        return d
    }

    @Test("a batch sets toggles, both axes of a pad and log sliders as one revision, and leaves buttons alone")
    func kindsInOneRevision() {
        var d = driver()
        _ = d.step("ben", "go", by: 1)
        let presses = d.state("go")
        let effects = d.send("ann", .batch(Batch(origin: "preset Bright", states: [
            "filter": .toggle(on: true), "pad": .xy(x: 7, y: 3), "cutoff": .slider(value: 1250), "go": .button(presses: 0),
        ])))
        #expect(effects.rejects.isEmpty)
        #expect(Set(effects.commits.map(\.control)) == ["filter", "pad", "cutoff"])
        #expect(Set(effects.commits.map(\.revision)) == [d.room.revision])
        #expect(d.state("go") == presses)
        #expect(d.state("pad") == .xy(x: 7, y: 3))
    }

    @Test("a pad's off-grid state does not fit and is skipped; the rest is committed")
    func padMisfit() {
        var d = driver()
        let effects = d.send("ann", .batch(Batch(origin: "x", states: ["pad": .xy(x: 7.5, y: 3), "filter": .toggle(on: true)])))
        #expect(effects.commits.map(\.control) == ["filter"])
    }

    @Test("undo and redo of a batch bring a pad back on both axes and a toggle back, in one revision each")
    func undoRedoKinds() {
        var d = driver()
        let initial = d.room.committed
        _ = d.send("ann", .batch(Batch(origin: "p", states: ["filter": .toggle(on: true), "pad": .xy(x: 7, y: 3), "cutoff": .slider(value: 1250)])))
        let recalled = d.room.committed
        let undone = d.send("ann", .undo)
        #expect(d.room.committed == initial)
        #expect(Set(undone.commits.map(\.revision)).count == 1)
        _ = d.send("ann", .redo)
        #expect(d.room.committed == recalled)
    }

    @Test("a batch touching a pad someone drags is busy naming the holder")
    func padHeld() {
        var d = driver()
        _ = d.begin("ben", "pad", nil)
        let effects = d.send("ann", .batch(Batch(origin: "p", states: ["pad": .xy(x: 7, y: 3), "filter": .toggle(on: true)])))
        #expect(effects.rejects.map(\.code) == [.busy])
        #expect(effects.rejects.first?.holder == "ben")
        #expect(d.state("filter") == .toggle(on: false))
    }
}

extension RoomDriver {
    /// The updates waiting for `client`, taken.
    mutating func updatesOf(_ client: ClientID) -> [Update] {
        drain(client).compactMap { if case let .update(u) = $0 { u } else { nil } }
    }
}
