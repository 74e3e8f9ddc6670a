import Testing
@testable import TandemCore
import TandemTestSupport

/// Random interleavings of several clients on every control, checked after every message.
///
/// Each sequence is replayable from its seed, which every failure prints.
@Suite("Random interleavings")
struct RoomPropertyTests {
    static let extended: RoomSchema = {
        try! RoomSchema(validating: RoomDefinition(id: "extended", controls: [
            ControlDefinition(id: "pick", type: "snap", values: [1, 2, 5, 10, 20, 50], layout: "proportional"),
            ControlDefinition(id: "wide", type: "range", scale: [-10, 10], operable: [-8, 9], minGap: 2,
                              state: StateDefinition(lower: -2, upper: 3)),
            ControlDefinition(id: "trim", type: "slider", commit: "live", min: -1, max: 1),
            ControlDefinition(id: "tint", type: "color", commit: "live"),
            ControlDefinition(id: "coarse", type: "slider", min: 0, max: 170, step: 10),
            ControlDefinition(id: "meter", type: "gauge", min: -1, max: 1),
        ]))
    }()

    static let kinds: RoomSchema = {
        try! RoomSchema(validating: RoomDefinition(id: "kinds", controls: [
            ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
            ControlDefinition(id: "q", type: "slider", commit: "live", min: 0.1, max: 10, scaleName: "log", digits: 2),
            ControlDefinition(id: "res", type: "slider", min: 0, max: 1, digits: 2),
            ControlDefinition(id: "pad", type: "xy", x: AxisDefinition(min: -1, max: 1, step: 0.25),
                              y: AxisDefinition(min: 20, max: 20000, scale: "log")),
            ControlDefinition(id: "live", type: "xy", commit: "live", x: AxisDefinition(min: 0, max: 1, digits: 3),
                              y: AxisDefinition(min: 0, max: 127, step: 1)),
            ControlDefinition(id: "on", type: "toggle"),
            ControlDefinition(id: "hit", type: "button"),
        ]))
    }()

    @Test("2,000 seeded sequences on log sliders, xy pads, toggles and buttons keep every invariant")
    func kindsRoomSequences() {
        let tally = Tally()
        for seed in UInt64(1)...2_000 {
            var run = Simulation(schema: Self.kinds, seed: seed &* 104_729, tally: tally)
            guard run.play() else { return }
        }
        tally.expectEverythingHappened()
    }

    @Test("3,000 seeded sequences on the demo room keep every invariant and replay from their commits")
    func demoRoomSequences() {
        let tally = Tally()
        for seed in UInt64(1)...3_000 {
            var run = Simulation(schema: .demo, seed: seed, tally: tally)
            guard run.play() else { return }
        }
        tally.expectEverythingHappened()
    }

    @Test("2,000 seeded sequences on a room with live commits, proportional snaps and gaps keep every invariant")
    func extendedRoomSequences() {
        let tally = Tally()
        for seed in UInt64(1)...2_000 {
            var run = Simulation(schema: Self.extended, seed: seed &* 7919, tally: tally)
            guard run.play() else { return }
        }
        tally.expectEverythingHappened()
    }
}

/// Counts what the random sequences did, so a generator that stopped reaching a case fails.
private final class Tally {
    var commits = 0
    var rejects: [RejectCode: Int] = [:]
    var lapses = 0
    var disconnectCancels = 0
    var endCommits = 0
    var undoCommits = 0
    var redoCommits = 0

    func expectEverythingHappened() {
        #expect(commits > 1_000)
        #expect(endCommits > 100)
        #expect(undoCommits > 100)
        #expect(redoCommits > 20)
        #expect(lapses > 10)
        #expect(disconnectCancels > 10)
        for code: RejectCode in [.badMessage, .unknownThumb, .badValue, .busy, .noGesture, .forbidden] {
            #expect(rejects[code, default: 0] > 10, "no \(code.rawValue) rejects were exercised")
        }
    }
}

/// One random sequence: clients that drag, set, step, undo, redo, wait, drop and rejoin, and
/// read their frames at random, checked against the room after every step.
private struct Simulation {
    let schema: RoomSchema
    let seed: UInt64
    var rng: SplitMix64
    var room: Room
    var now = Moment.seconds(50)
    var clients: [ClientID] = []
    var seqs: [ClientID: Int] = [:]
    var views: [ClientID: View] = [:]
    var replay: [ControlState]
    var revision = 0
    var nextID = 0
    /// Set by the first failed check; a class so checks need not mutate the simulation.
    final class Failure { var seen = false }
    let failure = Failure()
    var failed: Bool { failure.seen }

    /// What one client has learned from its welcome and frames.
    struct View {
        var controls: [ControlState]
        var ghosts: [String: ClientID] = [:]
        var revision: Int
        var ack = 0
    }

    let tally: Tally

    init(schema: RoomSchema, seed: UInt64, tally: Tally) {
        self.schema = schema
        self.seed = seed
        self.tally = tally
        rng = SplitMix64(seed: seed)
        room = Room(schema: schema)
        replay = room.committed
    }

    mutating func play() -> Bool {
        let people = 1 + Int(rng.next() % 6)
        for _ in 0..<people { addClient() }
        let steps = 40 + Int(rng.next() % 160)
        for step in 0..<steps {
            act(step)
            if failed { return false }
        }
        for client in clients { drain(client) }
        for client in clients {
            let view = views[client]!
            check(view.controls == room.committed, "\(client)'s view \(view.controls) differs from committed \(room.committed)")
            check(view.revision == room.revision, "\(client) saw revision \(view.revision), room is at \(room.revision)")
            check(view.ack == seqs[client, default: 0], "\(client) was acked \(view.ack) of \(seqs[client, default: 0])")
            var live: [String: ClientID] = [:]
            for slot in room.slots { if let g = slot.live { live["\(slot.control)/\(slot.thumb)"] = g.holder } }
            check(view.ghosts == live, "\(client) sees ghosts \(view.ghosts), live gestures are \(live)")
        }
        return !failed
    }

    // MARK: actions

    private mutating func act(_ step: Int) {
        let before = room.committed
        let beforeRevision = room.revision
        var mayCommit = true
        var effects: [Effect] = []
        let roll = rng.next() % 100
        switch roll {
        case 0..<45:
            let client = pick(clients)
            let (operation, phase) = randomDrag(for: client)
            mayCommit = phase != .cancel
            effects = send(client, operation)
            if phase == .end { tally.endCommits += effects.commits.count }
        case 45..<57:
            effects = send(pick(clients), randomSet())
        case 57..<61:
            let undo = rng.next() % 3 != 0
            effects = send(pick(clients), undo ? .undo : .redo)
            if undo { tally.undoCommits += effects.commits.count } else { tally.redoCommits += effects.commits.count }
            check(effects.commits.count <= 1, "step \(step): an undo or redo made \(effects.commits.count) commits")
        case 61..<67:
            let control = pick(schema.controls)
            let by: Double = rng.next() % 10 == 0 ? 0.5 : Double(Int(rng.next() % 25) - 12)
            var byY: Double?
            if case .xy = control.kind, rng.next() % 5 != 0 { byY = Double(Int(rng.next() % 25) - 12) }
            effects = send(pick(clients), .step(control: control.id, thumb: randomThumb(control), by: by, byY: byY))
        case 67..<77:
            now = now.adding(seconds: Double(rng.next() % 4000) / 1000)
            effects = room.expire(at: now)
            tally.lapses += effects.gestures.count
            mayCommit = false
        case 77..<80:
            now = now.adding(seconds: 10 + Double(rng.next() % 2000) / 1000)
            effects = room.expire(at: now)
            tally.lapses += effects.gestures.count
            mayCommit = false
        case 80..<85:
            let client = pick(clients)
            effects = room.leave(client, at: now)
            tally.disconnectCancels += effects.gestures.count
            clients.removeAll { $0 == client }
            views[client] = nil
            mayCommit = false
            addClient()
        default:
            drain(pick(clients))
            mayCommit = false
        }
        verify(effects, before: before, beforeRevision: beforeRevision, mayCommit: mayCommit, step: step)
    }

    private mutating func addClient() {
        nextID += 1
        let id = ClientID("c\(nextID)")
        let role: Role = rng.next() % 12 == 0 ? .viewer : .editor
        let (welcome, _) = room.join(id, name: "P\(nextID)", role: role, at: now)
        clients.append(id)
        var view = View(controls: welcome.controls.map(\.state), revision: welcome.revision)
        for g in welcome.gestures { view.ghosts["\(g.controlIndex)/\(g.thumb)"] = g.by }
        views[id] = view
    }

    private mutating func send(_ client: ClientID, _ operation: Operation) -> [Effect] {
        var seq = seqs[client, default: 0] + 1 + (rng.next() % 20 == 0 ? 3 : 0)
        if rng.next() % 30 == 0 { seq = seqs[client, default: 0] } // a repeated seq: bad_message
        seqs[client] = Swift.max(seq, seqs[client, default: 0])
        return room.apply(ClientMessage(seq: seq, operation), from: client, at: now)
    }

    private mutating func randomDrag(for client: ClientID) -> (Operation, DragPhase) {
        let held = room.slots.filter { $0.live?.holder == client }
        let slot: (control: Control, thumb: String?)
        if let mine = held.first, rng.next() % 5 != 0 {
            slot = (schema.controls[mine.control], mine.thumb.rawValue)
        } else {
            let control = pick(schema.controls)
            slot = (control, randomThumb(control))
        }
        let phase: DragPhase
        switch rng.next() % 10 {
        case 0..<2: phase = .begin
        case 2..<7: phase = .move
        case 7..<9: phase = .end
        default: phase = .cancel
        }
        var pointer: Pointer?
        if slot.thumb == Thumb.xy.rawValue || (slot.thumb == nil && slot.control.thumbs == [.xy]) {
            // A pad: dx and dy, an at pair, or the wrong shape of at.
            let f = { (r: UInt64) in Double(Int(r % 2400)) / 1000 - 1.2 }
            switch rng.next() % 6 {
            case 0: pointer = nil
            case 1: pointer = .at(f(rng.next()), y: f(rng.next()))
            case 2: pointer = rng.next() % 2 == 0 ? .at(0.5) : .dx(0, dy: .nan)
            default: pointer = .dx(f(rng.next()), dy: f(rng.next()))
            }
            if phase == .cancel || (phase == .begin && rng.next() % 2 == 0) { pointer = nil }
            return (.drag(control: slot.control.id, thumb: slot.thumb, phase: phase, pointer: pointer), phase)
        }
        switch rng.next() % 6 {
        case 0: pointer = nil
        case 1: pointer = .at(Double(Int(rng.next() % 1400)) / 1000 - 0.2)
        case 2: pointer = .dx(rng.next() % 2 == 0 ? .nan : 2)
        default: pointer = .dx(Double(Int(rng.next() % 2400)) / 1000 - 1.2)
        }
        if phase == .cancel || (phase == .begin && rng.next() % 2 == 0) { pointer = nil }
        return (.drag(control: slot.control.id, thumb: slot.thumb, phase: phase, pointer: pointer), phase)
    }

    private mutating func randomSet() -> Operation {
        let control = pick(schema.controls)
        let value: SetValue
        switch rng.next() % 10 {
        case 0: value = .number(.infinity)
        case 1: value = .text(String(format6(rng.next())))
        case 2: value = .other("boolean")
        default: value = .number(Double(Int(rng.next() % 4000)) / 100 - 20)
        }
        switch control.kind {
        case .xy where rng.next() % 4 != 0:
            let axis = { (r: UInt64) -> Double? in r % 5 == 0 ? nil : Double(Int(r % 40000)) / 100 - 100 }
            return .set(control: control.id, thumb: randomThumb(control), value: .point(x: axis(rng.next()), y: axis(rng.next())))
        case .toggle where rng.next() % 2 == 0, .button where rng.next() % 2 == 0:
            let flags: [SetValue] = [.flag(true), .flag(false), .number(1), .number(0), .number(2)]
            return .set(control: control.id, thumb: randomThumb(control), value: pick(flags))
        default:
            break
        }
        if case .color = control.kind, rng.next() % 2 == 0 {
            return .set(control: control.id, thumb: nil, value: .text(format6(rng.next())))
        }
        return .set(control: control.id, thumb: randomThumb(control), value: value)
    }

    private mutating func randomThumb(_ control: Control) -> String? {
        switch rng.next() % 12 {
        case 0: return nil
        case 1: return "bogus"
        default: return control.thumbs.isEmpty ? nil : pick(control.thumbs).rawValue
        }
    }

    private mutating func drain(_ client: ClientID) {
        guard var view = views[client] else { return }
        while let frame = room.nextFrame(for: client) {
            guard case let .update(u) = frame else { continue }
            for change in u.changes { view.controls[change.controlIndex] = change.state }
            for g in u.gestures.map(\.entry) {
                let key = "\(g.controlIndex)/\(g.thumb)"
                switch g.phase {
                case .begin, .move: view.ghosts[key] = g.by
                case .end, .cancel: view.ghosts[key] = nil
                }
                check(schema.controls[g.controlIndex].isValid(g.state), "gesture entry with invalid state \(g)")
            }
            check(u.revision >= view.revision, "revision went back from \(view.revision) to \(u.revision)")
            check(u.ack >= view.ack, "ack went back")
            view.revision = u.revision
            view.ack = u.ack
        }
        views[client] = view
    }

    // MARK: checks

    private mutating func verify(_ effects: [Effect], before: [ControlState], beforeRevision: Int, mayCommit: Bool, step: Int) {
        tally.commits += effects.commits.count
        for reject in effects.rejects { tally.rejects[reject.code, default: 0] += 1 }
        for effect in effects {
            switch effect {
            case let .commit(commit):
                revision += 1
                check(commit.revision == revision, "commit made revision \(commit.revision), expected \(revision)")
                replay[commit.controlIndex] = commit.state
            case let .gesture(entry):
                check(schema.controls[entry.controlIndex].isValid(entry.state), "gesture entry breaks an invariant: \(entry)")
            default:
                break
            }
        }
        for (i, control) in schema.controls.enumerated() {
            check(control.isValid(room.committed[i]), "step \(step): committed \(control.id) = \(room.committed[i]) breaks an invariant")
            check(control.isValid(room.displayed(i)), "step \(step): displayed \(control.id) = \(room.displayed(i)) breaks an invariant")
        }
        check(room.revision == revision, "room revision \(room.revision), commits seen \(revision)")
        check(replay == room.committed, "step \(step): replaying the commits gives \(replay), committed is \(room.committed)")
        if !mayCommit {
            check(room.committed == before && room.revision == beforeRevision,
                  "step \(step): a cancel, lapse or disconnect changed committed state")
        }
        if !effects.rejects.isEmpty {
            check(effects.commits.isEmpty, "step \(step): a rejected message committed")
        }
        for slot in room.slots {
            if let holder = slot.live?.holder { check(room.contains(holder), "a gesture is held by \(holder), who left") }
        }
    }

    private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition, !failure.seen else { return }
        failure.seen = true
        Issue.record("seed \(seed) (\(schema.id)): \(message())")
    }

    private mutating func pick<T>(_ items: [T]) -> T {
        items[Int(rng.next() % UInt64(items.count))]
    }
}

private func format6(_ bits: UInt64) -> String {
    let digits = Array("0123456789abcdefABCDEFxz")
    var out = "#"
    var b = bits
    for _ in 0..<6 {
        out.append(digits[Int(b % UInt64(digits.count))])
        b /= UInt64(digits.count)
    }
    return out
}
