import Testing
@testable import TandemCore

/// A room's members by id for everything, and by slot for a round
/// (MemberTable.swift): a slot is only a hint, and removing a member moves
/// another into its place.
@Suite("The member table")
struct MemberTableTests {
    static func member(_ id: String, ack: Int = 0) -> Member {
        var member = Member(peer: Peer(client: ClientID(id), name: id, color: Peer.palette[1]), role: .editor, cursor: 0, joinedAt: 0,
                            announced: true, bucket: TokenBucket(burst: 600))
        member.ack = ack
        return member
    }

    @Test("an optional member takes no more room than a member")
    func optionalIsFree() {
        #expect(MemoryLayout<Member?>.stride == MemoryLayout<Member>.stride)
    }

    @Test("members are read, set, changed in place and removed by id, as in a dictionary")
    func byID() {
        var table = MemberTable()
        #expect(table.isEmpty && table["ann"] == nil)
        table["ann"] = Self.member("ann", ack: 1)
        table["ben"] = Self.member("ben", ack: 2)
        table["ann"]?.ack = 5           // in place, through the optional
        table["cat"]?.ack = 9           // not a member: nothing happens
        #expect(table.count == 2 && table["ann"]?.ack == 5 && table["ben"]?.ack == 2 && table["cat"] == nil)
        #expect(Set(table.keys) == ["ann", "ben"])
        #expect(Set(table.values.map(\.ack)) == [5, 2])

        table["ben"] = Self.member("ben", ack: 7)   // replaced, not added
        #expect(table.count == 2 && table["ben"]?.ack == 7)
        #expect(table.removeValue(forKey: "ann")?.ack == 5)
        #expect(table.removeValue(forKey: "ann") == nil)
        table["ben"] = nil
        #expect(table.isEmpty && table["ben"] == nil)
    }

    @Test("setting a member to nil through the optional removes it")
    func removedInPlace() {
        var table = MemberTable()
        table["ann"] = Self.member("ann")
        table["ben"] = Self.member("ben")
        func clear(_ member: inout Member?) { member = nil }
        clear(&table["ann"])
        #expect(table.count == 1 && table["ann"] == nil && table["ben"] != nil)
        var added: Member? = Self.member("cat", ack: 3)
        func put(_ member: inout Member?) { member = added }
        put(&table["cat"])
        added = nil
        #expect(table.count == 2 && table["cat"]?.ack == 3)
    }

    @Test("a slot hint is used when it holds the member, and looked past when it holds someone else")
    func slotHints() {
        var table = MemberTable()
        for (i, id) in ["ann", "ben", "cat", "dan"].enumerated() { table[ClientID(id)] = Self.member(id, ack: i) }
        let dan = table.slot(of: "dan", hint: -1)
        #expect(dan != nil && table[slot: dan!].ack == 3)
        #expect(table.slot(of: "dan", hint: dan!) == dan)
        // Removing ann moves the last member (dan) into ann's slot.
        let ann = table.slot(of: "ann", hint: -1)!
        table["ann"] = nil
        #expect(table.slot(of: "dan", hint: dan!) == ann, "a stale hint finds the member where it moved")
        #expect(table[slot: ann].ack == 3)
        #expect(table.slot(of: "ann", hint: ann) == nil, "the slot now holds dan, and ann is gone")
        #expect(table.slot(of: "ben", hint: 99) == table.slot(of: "ben", hint: -1), "a hint past the end")
        table[slot: ann].ack = 11
        #expect(table["dan"]?.ack == 11, "changed in place by slot")
    }

    @Test("after any mix of adds and removes, every member is found by id and by its own slot")
    func churn() {
        var table = MemberTable()
        var expected: [ClientID: Int] = [:]
        var rng = SystemRandomNumberGenerator()
        for step in 0..<2_000 {
            let id = ClientID("c\(Int.random(in: 0..<64, using: &rng))")
            if Bool.random(using: &rng) {
                table[id] = Self.member(id.rawValue, ack: step)
                expected[id] = step
            } else {
                #expect(table.removeValue(forKey: id)?.ack == expected.removeValue(forKey: id))
            }
        }
        #expect(table.count == expected.count)
        for (id, ack) in expected {
            let slot = table.slot(of: id, hint: -1)
            #expect(slot != nil && table[slot: slot!].ack == ack && table[id]?.ack == ack)
            #expect(table.slot(of: id, hint: slot!) == slot)
        }
    }
}
