import Testing
@testable import TandemCore

/// Batch notes (BatchNote.swift): whose recall, restore or reset moved the
/// controls, carried once to every member so that a page can say so.
@Suite("Batch notes")
struct BatchNoteTests {
    private func twoPeople() -> RoomDriver {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        d.join("ann"); d.join("ben")
        _ = d.drain("ann"); _ = d.drain("ben")
        return d
    }

    private let warm: [String: ControlState] = ["gain": .slider(value: 0.8), "size": .snap(index: 4, value: 100)]

    @Test("a recall's note reaches everyone once, with its revision, author, preset and the controls it changed in room order")
    func recallNote() {
        var d = twoPeople()
        _ = d.send("ann", .batch(Batch(.preset(name: "Warm"), states: warm)))
        let expected = BatchNote(revision: d.room.revision, by: "ann", cause: .preset(name: "Warm"), controls: ["size", "gain"])
        #expect(d.room.lastBatch == expected)
        for client: ClientID in ["ann", "ben"] {
            let updates = d.updatesOf(client)
            #expect(updates.compactMap(\.batch) == [expected], "\(client)")
            #expect(updates.last?.changes.count == 2)
        }
        _ = d.set("ben", "gain", .number(0.1))
        #expect(d.updatesOf("ann").allSatisfy { $0.batch == nil }, "a note is carried once, not with every later frame")
    }

    @Test("a batch that changes nothing, or has no cause, makes no note")
    func noNote() {
        var d = twoPeople()
        _ = d.send("ann", .batch(Batch(.preset(name: "Same"), states: ["gain": d.state("gain")])))
        #expect(d.room.lastBatch == nil)
        #expect(d.drain("ben").isEmpty)
        _ = d.send("ann", .batch(Batch(origin: "script", states: warm)))
        #expect(d.room.lastBatch == nil)
        #expect(d.updatesOf("ben").allSatisfy { $0.batch == nil })
    }

    @Test("a refused batch makes no note")
    func refusedBatch() {
        var d = twoPeople()
        _ = d.begin("ben", "gain", nil)
        let effects = d.send("ann", .batch(Batch(.preset(name: "Warm"), states: warm)))
        #expect(effects.rejects.map(\.code) == [.busy])
        #expect(d.room.lastBatch == nil)
    }

    @Test("resets are noted: a control's names it, the room's does not; each lists what it changed")
    func resetNotes() {
        var d = twoPeople()
        _ = d.set("ann", "gain", .number(0.9))
        _ = d.set("ann", "size", .number(20))
        _ = d.send("ben", .reset(control: "gain"))
        #expect(d.room.lastBatch == BatchNote(revision: d.room.revision, by: "ben", cause: .reset(control: "gain"), controls: ["gain"]))
        _ = d.send("ben", .reset(control: nil))
        #expect(d.room.lastBatch == BatchNote(revision: d.room.revision, by: "ben", cause: .reset(control: nil), controls: ["size"]))
    }

    @Test("conflated: a member slow through two batches hears of the later one only")
    func conflated() {
        var d = twoPeople()
        _ = d.send("ann", .batch(Batch(.preset(name: "Warm"), states: warm)))
        _ = d.send("ann", .batch(Batch(.restore(revision: 1), states: ["gain": .slider(value: 0.2)])))
        let notes = d.updatesOf("ben").compactMap(\.batch)
        #expect(notes == [BatchNote(revision: d.room.revision, by: "ann", cause: .restore(revision: 1), controls: ["gain"])])
    }

    @Test("a fan-out round shares the note with every member in step")
    func roundCarriesTheNote() {
        var d = twoPeople()
        _ = d.room.openRound()
        _ = d.send("ann", .batch(Batch(.preset(name: "Warm"), states: warm)))
        let round = d.room.openRound()
        #expect(round?.update.batch?.cause == .preset(name: "Warm"))
        #expect(round?.isEmpty == false)
        #expect(d.room.share(of: round!, for: "ben") == .shared(ack: 0, present: nil))
    }

    @Test("a view shows the authority's note to its members, as the delta carried it")
    func viewShowsTheNote() {
        var c = Cluster(nodes: 2, limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        c.join("ann", name: "Ann", on: 0)
        c.join("ben", name: "Ben", on: 1)
        c.publish()
        while c.views[1].nextFrame(for: "ben") != nil {}
        c.send("ann", .batch(Batch(.preset(name: "Warm"), states: warm)))
        let delta = c.publish()
        #expect(delta.batch?.cause == .preset(name: "Warm"))
        var notes: [BatchNote] = []
        while let frame = c.views[1].nextFrame(for: "ben") {
            if case let .update(u) = frame, let note = u.batch { notes.append(note) }
        }
        #expect(notes == [delta.batch!])
        #expect(c.publish().batch == nil, "the next delta does not carry it again")
    }
}
