/// A view's resynchronisation: it starts from, or catches up with, the whole
/// visible room (`RoomSnapshot`) instead of the deltas it missed.
extension Room {
    /// Makes the view show `snapshot`, changing only what differs, so that
    /// its local members' next frames carry exactly the difference.
    ///
    /// A live gesture the snapshot no longer has (or whose thumb another
    /// person holds now) ends for the members as a `cancel` showing the
    /// control's committed state. Local members that `isLocal` disowns are
    /// dropped (`dropLocal`); local members the snapshot does not announce
    /// stay local, quiet, until the server re-registers them with the
    /// authority and they come back through a delta's `admitted` and `joined`.
    /// The announce order becomes the snapshot's; a peer shown already is not
    /// announced again for a change of place alone.
    mutating func absorb(_ snapshot: RoomSnapshot, isLocal: (ClientID) -> Bool) {
        for client in members.keys where !isLocal(client) { dropLocal(client) }
        revision = snapshot.revision
        for (c, control) in zip(committed.indices, snapshot.controls)
        where committed[c] != control.state || revisions[c] != control.revision || committedBy[c] != control.by
            || claimedBy[c] != control.claim {
            show(c, control)
        }
        resyncGestures(to: snapshot.gestures)
        let wanted = Set(snapshot.peers.map(\.client))
        for client in announced where !wanted.contains(client) { showLeft(client) }
        for peer in snapshot.peers where shownPeer(peer.client) != peer { showJoined(peer) }
        announced = snapshot.peers.map(\.client)
        if viewPresent != snapshot.present {
            viewPresent = snapshot.present
            log.touch(.presence)
        }
        forgetDeparted()
    }

    /// Ends the live gestures `gestures` does not continue, then shows those that differ.
    private mutating func resyncGestures(to gestures: [GestureEntry]) {
        var wanted: [Int: GestureEntry] = [:]
        for entry in gestures {
            if let s = slot(of: entry) { wanted[s] = entry }
        }
        for s in slots.indices {
            guard let live = slots[s].liveEntry, wanted[s]?.by != live.by else { continue }
            var ended = live
            ended.phase = .cancel
            ended.state = committed[live.controlIndex]
            show(ended)
        }
        for entry in gestures {
            guard let s = slot(of: entry), slots[s].liveEntry != entry else { continue }
            show(entry)
        }
    }

    /// How the view shows `client` announced, if it does.
    private func shownPeer(_ client: ClientID) -> Peer? {
        if let remote = remotePeers[client] { return remote.peer }
        if let member = members[client], member.announced { return member.peer }
        return nil
    }
}
