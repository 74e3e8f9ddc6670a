/// The authority's side of replication: what it publishes to the views, and
/// how members served by any node come into it.
extension Room {
    /// What changed since the previous delta, read from the change log as it
    /// is now (each item once, the latest of it, in log order), with the count
    /// of people present. It leaves `acks`, `rejects` and `admitted` empty: the
    /// server fills them from the turn's effects and joins. Changes nothing but
    /// the publish base (members' cursors, rounds and rejects are untouched).
    mutating func publishDelta() -> RoomDelta {
        let base = publishBase
        publishBase = log.stamp
        var update = Update(revision: revision, ack: 0, changes: [], gestures: [], joined: [], left: [])
        collect(after: base, for: nil, into: &update)
        var changes = update.changes
        for i in changes.indices { changes[i].stamp = 0 }
        return RoomDelta(revision: revision, changes: changes, gestures: update.gestures.map(\.entry),
                         joined: update.joined, left: update.left, present: present,
                         presenceRefreshed: (log.stamp(of: .presence) ?? 0) > base, batch: update.batch)
    }

    /// Takes in `client`, re-registered with this owner (the room changed
    /// owner, or its node reconnected): absent, it joins as with `join`, its
    /// ordering and `ack` starting at `ack` (its next `seq` must be above it);
    /// already present, nothing changes and there are no effects. Returns how
    /// the room took it, for the delta's `admitted`. Not for a view, which
    /// takes members only from its authority's deltas.
    mutating func register(_ client: ClientID, name: String, role: Role, ack: Int, at now: Moment) -> (Admission, [Effect]) {
        if let admission = admission(of: client) { return (admission, []) }
        let (_, effects) = join(client, name: name, role: role, at: now)
        members[client]?.ack = ack // and so its `lastSeq` (Member.swift)
        return (admission(of: client)!, effects)
    }

    /// How the room took `client`, if it is a member: what a view needs to admit it.
    public func admission(of client: ClientID) -> Admission? {
        members[client].map { Admission(peer: $0.peer, role: $0.role, announced: $0.announced, ack: $0.ack) }
    }

    /// The whole visible room, for a view to start from or resynchronise to.
    var snapshotForViews: RoomSnapshot {
        RoomSnapshot(
            revision: revision,
            controls: committed.indices.map { CommittedControl(state: committed[$0], revision: revisions[$0], by: committedBy[$0], claim: claimedBy[$0]) },
            gestures: slots.compactMap(\.liveEntry),
            peers: peers,
            present: present
        )
    }
}
