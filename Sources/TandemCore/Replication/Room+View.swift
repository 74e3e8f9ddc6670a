/// A view's side of replication: it changes only by what its authority
/// publishes, into its own change log, so that its local members' frames
/// (`nextFrame`, `openRound`, `share`, `welcome`) are built exactly as a
/// single node builds them.
///
/// Its `members` are the local members only (the node's connections); the
/// people other nodes serve are `remotePeers`, shown and never given frames.
///
/// Where a view's frames can differ from a single node's (ReplicationTests
/// checks equality everywhere else, turn by turn):
/// - A view changes once per authority turn. Someone announced and gone
///   within one turn (a rejoin under the same id, or a join and a leave the
///   server read in the same turn) leaves no trace in the delta, so the view
///   wakes nobody; a single node touched their peer item, which gave every
///   member a frame carrying at least the new `present`. Nothing visible is lost.
/// - A newcomer's welcome shows the room at the end of its turn: what a
///   single node sends it as a welcome at its join plus a first frame with
///   the rest of the turn comes as one welcome. The same when its join was
///   the turn's last change.
/// - A delta whose only news is `present` (a quiet member left) is `isEmpty`:
///   the server must still publish it, or the views' count lags.
/// - `displayed(_:)`, `nextLapse` and `holdsAnything(_:)` know no live
///   previews in a view (it holds no `Gesture`); frames and welcomes read
///   gesture entries only, so they are unaffected.
extension Room {
    /// Takes in what the authority published after a turn. `isLocal` tells
    /// which admitted members this node serves: they become local members
    /// whose cursor is the view's stamp after the whole delta, so the welcome
    /// the server sends right after shows the room as it then is.
    mutating func absorb(_ delta: RoomDelta, isLocal: (ClientID) -> Bool) {
        revision = delta.revision
        for change in delta.changes where committed.indices.contains(change.controlIndex) {
            show(change.controlIndex, CommittedControl(state: change.state, revision: change.revision, by: change.by, claim: change.claim))
        }
        for entry in delta.gestures { show(entry) }
        // Admitted before `joined`, which marks an announced newcomer as such.
        var newcomers: [ClientID] = []
        for admission in delta.admitted where isLocal(admission.peer.client) {
            if admit(admission) { newcomers.append(admission.peer.client) }
        }
        for client in delta.left { showLeft(client) }
        for peer in delta.joined { showJoined(peer) }
        viewPresent = delta.present
        if delta.presenceRefreshed { log.touch(.presence) }
        if let note = delta.batch {
            lastBatch = note
            log.touch(.batch)
        }
        // Forward only: the node may have refused a later message itself
        // (its own rate limit, `unavailable`), and its ack stands.
        for ack in delta.acks where ack.seq > members[ack.client]?.ack ?? Int.max { members[ack.client]?.process(seq: ack.seq) }
        for reject in delta.rejects { members[reject.to]?.queue(reject, limit: limits.pendingRejects) }
        for client in newcomers {
            members[client]?.cursor = log.stamp
            members[client]?.presentSeen = viewPresent
        }
        if !delta.left.isEmpty { forgetDeparted() }
    }

    /// A local member's connection closed: it stops being served here. An
    /// announced one stays shown, as a remote peer, until the authority's
    /// `left` arrives; a quiet one is gone. Nothing is announced by the view
    /// itself: the authority decides who leaves and who is promoted.
    mutating func dropLocal(_ client: ClientID) {
        guard let member = members.removeValue(forKey: client) else { return }
        if member.announced { remotePeers[client] = RemotePeer(peer: member.peer, joinedAt: member.joinedAt) }
    }

    /// Limits the `ack` `client`'s frames carry to below `seq`, its oldest
    /// message relayed to the owner and not yet answered (`nil`: none is
    /// waiting): an `ack` is cumulative, and may never stand for a message the
    /// owner never answered, whatever else the client was answered meanwhile.
    /// Raising the limit lets the ack held back go out.
    mutating func holdAck(_ client: ClientID, below seq: Int?) {
        guard var member = members[client] else { return }
        let ceiling = seq.map { $0 - 1 }
        guard ceiling != member.ackCeiling else { return }
        let before = member.sentAck
        member.ackCeiling = ceiling
        if member.sentAck != before { member.ackDirty = true }
        members[client] = member
    }

    /// The `ack` `client`'s next frame carries.
    public func sentAck(of client: ClientID) -> Int? { members[client]?.sentAck }

    /// How many members this node serves from the view (all members, outside a view).
    public var localMemberCount: Int { members.count }

    /// Whether this node serves `client` from the view (a member, outside a view).
    public func isLocalMember(_ client: ClientID) -> Bool { members[client] != nil }

    // MARK: changing what the view shows

    /// Makes `control` the committed state of control `c`, for every member's next frame.
    mutating func show(_ c: Int, _ control: CommittedControl) {
        committed[c] = control.state
        revisions[c] = control.revision
        committedBy[c] = control.by
        claimedBy[c] = control.claim
        log.touch(.control(c))
    }

    /// Changes a thumb's gesture entries as `emit` (`begin`, `move`: the live
    /// entry) or `finish` (`end`, `cancel`: the live entry goes, the ended
    /// one is set) change them in the authority.
    mutating func show(_ entry: GestureEntry) {
        guard let s = slot(of: entry) else { return }
        switch entry.phase {
        case .begin, .move:
            slots[s].liveEntry = entry
            log.touch(.liveGesture(slot: s))
        case .end, .cancel:
            slots[s].liveEntry = nil
            slots[s].endedEntry = entry
            log.remove(.liveGesture(slot: s))
            log.touch(.endedGesture(slot: s))
        }
    }

    /// Takes in a member the authority admitted that this node serves; returns
    /// whether it is new here. Already local (re-registered with a new owner),
    /// it keeps its cursor, ack and rejects: only its role and peer follow.
    /// Shown already as a remote peer (announced before it was admitted
    /// here), it keeps that announcement.
    mutating func admit(_ admission: Admission) -> Bool {
        let client = admission.peer.client
        if members[client] != nil {
            members[client]?.role = admission.role
            members[client]?.peer = admission.peer
            return false
        }
        var member = Member(peer: admission.peer, role: admission.role, cursor: log.stamp, joinedAt: 0, announced: false,
                            bucket: TokenBucket(burst: limits.burst))
        member.ack = admission.ack // and so its `lastSeq` (Member.swift)
        if let remote = remotePeers.removeValue(forKey: client) {
            member.announced = true
            member.joinedAt = remote.joinedAt
        }
        members[client] = member
        return true
    }

    /// Shows `peer` announced, last in the announce order: a local member is
    /// marked announced, anyone else becomes a remote peer. One shown already
    /// (a rejoin under the same id) moves to the end, as `leave` then `join`
    /// move it in the authority, and keeps its earliest announcement.
    mutating func showJoined(_ peer: Peer) {
        let client = peer.client
        // The same person announced again with another focus: changed in place, keeping their place in the list.
        if announcedAt(client) != nil, let shown = shownPeer(client), shown.isSamePerson(as: peer) {
            log.touch(.peer(client))
            if members[client] != nil { members[client]?.peer = peer } else { remotePeers[client]?.peer = peer }
            return
        }
        if let before = announcedAt(client) {
            departed[client] = Swift.min(departed[client] ?? before, before)
            announced.removeAll { $0 == client }
        }
        let stamp = log.touch(.peer(client))
        if members[client] != nil {
            members[client]?.peer = peer
            members[client]?.announced = true
            members[client]?.joinedAt = stamp
        } else {
            remotePeers[client] = RemotePeer(peer: peer, joinedAt: stamp)
        }
        announced.append(client)
    }

    /// Shows `client` gone, as `leave` records it in the log: whoever was
    /// told it joined is told it left. A remote peer is forgotten; a local
    /// member (the authority no longer announces it) stays, quiet, since its
    /// connection is this node's to close.
    mutating func showLeft(_ client: ClientID) {
        guard let joinedAt = announcedAt(client) else { return }
        if remotePeers.removeValue(forKey: client) == nil { members[client]?.announced = false }
        announced.removeAll { $0 == client }
        departed[client] = Swift.min(departed[client] ?? joinedAt, joinedAt)
        log.touch(.peer(client))
    }

    /// The slot of the thumb `entry` is about, if the schema has it.
    func slot(of entry: GestureEntry) -> Int? {
        schema.controls.indices.contains(entry.controlIndex) ? slot(entry.controlIndex, entry.thumb) : nil
    }

    /// The stamp at which the view announced `client`, if it shows it announced.
    func announcedAt(_ client: ClientID) -> UInt64? {
        if let remote = remotePeers[client] { return remote.joinedAt }
        if let member = members[client], member.announced { return member.joinedAt }
        return nil
    }
}
