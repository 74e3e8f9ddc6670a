import Testing
@testable import TandemCore

/// A member's memory: the room keeps one per connection, so an idle one must
/// stay small (Member.swift), and what it keeps out of line must still behave
/// as a value.
@Suite("A member's layout")
struct MemberLayoutTests {
    static func fresh(color: String = Peer.palette[1]) -> Member {
        Member(peer: Peer(client: "ann", name: "Ann", color: color), role: .editor, cursor: 3, joinedAt: 3, announced: true,
               bucket: TokenBucket(burst: 600))
    }

    static func reject(_ seq: Int) -> Reject {
        Reject(to: "ann", seq: seq, code: .busy, message: "held", holder: "ben")
    }

    static let edit = Edit(changes: [Edit.Change(control: 0, thumb: .value, before: ThumbValue(0.1), after: ThumbValue(0.2))])

    @Test("a member is at most 96 bytes inline, and a fresh or idle one allocates nothing more")
    func size() {
        #expect(MemoryLayout<Member>.size <= 96)
        #expect(MemoryLayout<Member>.stride <= 96)
        let member = Self.fresh()
        #expect(!member.hasExtras)
        #expect(member.peer == Peer(client: "ann", name: "Ann", color: Peer.palette[1]))
        #expect(member.takesFrames && member.announced && !member.ackDirty)
        #expect(member.rejects.isEmpty && member.droppedRejects == 0 && member.holds.isEmpty)
        #expect(member.ackCeiling == nil && member.droppedBelow == nil && member.history == EditHistory())

        var d = RoomDriver()
        d.join("ann")
        d.join("ben", role: .viewer)
        _ = d.set("ann", "gain", .number(0.2))
        #expect(d.room.members["ben"]?.hasExtras == false, "a member that only watches")
        #expect(d.room.members["ann"]?.hasExtras == true, "its undo history")
    }

    @Test("a copy's rejects, holds, history, ack limits and peer change without the original's")
    func valueSemantics() {
        var original = Self.fresh()
        original.queue(Self.reject(1), limit: 4)
        original.holds.insert(2)
        original.history.record(Self.edit, limit: 50)
        let before = (original.rejects, original.holds, original.history, original.peer)

        var copy = original
        copy.queue(Self.reject(2), limit: 4)
        copy.holds.insert(5)
        copy.holds.remove(2)
        copy.history.move(.undo, limit: 50)
        copy.ackCeiling = 7
        copy.peer.focus = "gain"
        copy.peer.color = "#123456"
        #expect(copy.takeReject() == Self.reject(1))

        #expect(original.rejects == before.0 && original.holds == before.1 && original.history == before.2)
        #expect(original.peer == before.3 && original.ackCeiling == nil && original.sentAck == original.ack)
        #expect(copy.rejects == [Self.reject(2)] && copy.holds == [5] && copy.history.redoStack == [Self.edit])
        #expect(copy.ackCeiling == 7 && copy.peer.focus == "gain" && copy.peer.color == "#123456")

        // And the other way round: the original changed after the copy was made.
        var second = original
        original.rejects.removeAll()
        original.holds.removeAll()
        original.history.record(Self.edit, limit: 50)
        #expect(second.rejects == before.0 && second.holds == before.1 && second.history == before.2)
        second.queue(Self.reject(3), limit: 4)
        #expect(original.rejects.isEmpty && original.history.undoStack.count == 2)
    }

    @Test("the out-of-line parts are released once all are back to their defaults")
    func release() {
        var member = Self.fresh()
        member.queue(Self.reject(1), limit: 4)
        member.queue(Self.reject(2), limit: 4)
        #expect(member.hasExtras)
        _ = member.takeReject()
        #expect(member.hasExtras)
        _ = member.takeReject()
        #expect(!member.hasExtras && member.takeReject() == nil)

        member.holds.insert(1)
        member.holds.remove(1)
        member.peer.focus = "gain"
        member.peer.focus = nil
        member.ackCeiling = 4
        member.ackCeiling = nil
        #expect(!member.hasExtras)

        // A colour off the palette is kept out of line, and a palette one again inline.
        member.peer.color = "#ABCDEF"
        #expect(member.hasExtras && member.peer.color == "#ABCDEF")
        member.peer = Peer(client: "ann", name: "Ann B", color: Peer.palette.last!)
        #expect(!member.hasExtras && member.peer == Peer(client: "ann", name: "Ann B", color: Peer.palette.last!))

        // A dropped reject limits the ack for good.
        member.queue(Self.reject(1), limit: 0)
        #expect(member.droppedRejects == 1 && member.droppedBelow == 0 && member.hasExtras)
    }

    @Test("the narrowed fields: seq and ack keep a full Int, present counts are clamped to 32 bits")
    func narrowed() {
        var member = Self.fresh()
        member.process(seq: Int.max)
        #expect(member.lastSeq == Int.max && member.ack == Int.max && member.ackDirty)
        member.lastSeq = 5
        #expect(member.ack == 5)
        member.presentSeen = 40_000
        #expect(member.presentSeen == 40_000)
        member.presentSeen = Int.max
        #expect(member.presentSeen == Int(Int32.max))
        member.takesFrames = false
        member.announced = false
        member.ackDirty = false
        #expect(!member.takesFrames && !member.announced && !member.ackDirty && member.role == .editor)
    }

    @Test("a room's member frees its rejects once they are sent")
    func roomReleasesRejects() {
        var d = RoomDriver()
        d.join("ann")
        _ = d.set("ann", "nope", .number(1))
        #expect(d.room.waitingRejects(for: "ann") == 1)
        #expect(d.room.members["ann"]?.hasExtras == true)
        while d.room.nextFrame(for: "ann") != nil {}
        #expect(d.room.waitingRejects(for: "ann") == 0)
        #expect(d.room.members["ann"]?.hasExtras == false)
    }
}
