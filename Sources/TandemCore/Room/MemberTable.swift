/// A room's members: one dense array that a fan-out round walks by slot, and
/// each client's slot.
///
/// Everything but a round reaches a member by its id, as it would in a
/// dictionary (`members[client]`, read, set, changed in place, or set to
/// `nil` to remove). A round reaches each member by the slot its connection
/// remembered (`Room.share(of:for:slot:)`): no hash of the id and no
/// dictionary access per recipient, which were the largest user-space cost
/// of a round (docs/benchmarks.md, "Where a frame's time goes").
///
/// Removing a member moves the last one into its slot, so the array stays
/// dense and a remembered slot may come to hold someone else: a slot is a
/// hint, checked against the id (`slot(of:hint:)`).
struct MemberTable: Sendable {
    /// Each member's slot in `storage`.
    private var slotOf: [ClientID: Int] = [:]
    /// The members, dense. `Optional` only so that a member can be changed in
    /// place through an optional (`members[client]?.ack = 3`); never `nil`
    /// between two calls. `Member?` takes no more room than `Member` (its
    /// strings' spare bits mark `nil`; MemberLayoutTests).
    private var storage: [Member?] = []
    /// The id each slot is kept under (parallel to `storage`).
    private var ids: [ClientID] = []

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }
    /// The members' ids, in no particular order.
    var keys: Dictionary<ClientID, Int>.Keys { slotOf.keys }
    /// The members, in slot order: a view, as a dictionary's `values` is, not a copy.
    var values: LazyMapSequence<[Member?], Member> { storage.lazy.map { $0! } }

    subscript(client: ClientID) -> Member? {
        get { slotOf[client].map { storage[$0] } ?? nil }
        set {
            if let newValue {
                if let slot = slotOf[client] {
                    storage[slot] = newValue
                } else {
                    append(newValue, as: client)
                }
            } else {
                removeValue(forKey: client)
            }
        }
        _modify {
            if let slot = slotOf[client] {
                yield &storage[slot]
                if storage[slot] == nil { remove(at: slot, client: client) }
            } else {
                var added: Member? = nil
                yield &added
                if let added { append(added, as: client) }
            }
        }
    }

    /// Removes `client`'s member and returns it (`nil`: it was not one).
    @discardableResult
    mutating func removeValue(forKey client: ClientID) -> Member? {
        guard let slot = slotOf[client] else { return nil }
        let member = storage[slot]
        remove(at: slot, client: client)
        return member
    }

    /// `client`'s slot: `hint` if the member there is `client`'s (no hash),
    /// else looked up by id; `nil` if `client` is not a member.
    func slot(of client: ClientID, hint: Int) -> Int? {
        if hint >= 0, hint < storage.count, ids[hint] == client { return hint }
        return slotOf[client]
    }

    /// The member in `slot` (a slot from `slot(of:hint:)`), changed in place.
    subscript(slot slot: Int) -> Member {
        get { storage[slot]! }
        _modify { yield &storage[slot]! }
    }

    private mutating func append(_ member: Member, as client: ClientID) {
        slotOf[client] = storage.count
        storage.append(member)
        ids.append(client)
    }

    /// Empties `slot` by moving the last member into it.
    private mutating func remove(at slot: Int, client: ClientID) {
        slotOf[client] = nil
        let last = storage.count - 1
        if slot != last {
            storage.swapAt(slot, last)
            ids.swapAt(slot, last)
            slotOf[ids[slot]] = slot
        }
        storage.removeLast()
        ids.removeLast()
    }
}
