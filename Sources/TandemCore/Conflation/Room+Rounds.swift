/// A fan-out round's shared content: what changed since the previous round,
/// as every member in step with the rounds sees it.
///
/// A member is *in step* when its last frame was the previous round's (its
/// cursor is the round's `base`), it has no reject or `ack` waiting of its
/// own, and its own presence did not change since: then its next frame is
/// exactly `update` with its own `ack`, and with `present` when it has not
/// heard the count. The server encodes that content once per round and
/// writes it to all of them; only members out of step (a sender's ack, a
/// reject, a newcomer's catch-up) get a frame of their own from `nextFrame(for:)`.
public struct RoundUpdate: Sendable {
    /// The change-log stamp of the previous round: the cursor of every member in step.
    public let base: UInt64
    /// The stamp this round brings its members to.
    public let stamp: UInt64
    /// The shared content, with `ack` 0 and `present` nil (both are per member).
    public let update: Update
    /// The number of people present.
    public let present: Int
    /// People whose presence changed in this round: a member among them sees
    /// its own change left out, so it gets a frame of its own.
    let peers: Set<ClientID>

    /// Whether the shared content carries nothing (only an `ack` or `present` could make a frame of it).
    public var isEmpty: Bool {
        update.changes.isEmpty && update.gestures.isEmpty && update.joined.isEmpty && update.left.isEmpty && update.batch == nil
    }
}

/// How one member takes part in a fan-out round.
public enum RoundShare: Sendable, Equatable {
    /// Nothing new for it.
    case nothing
    /// The round's shared update with this `ack`, and `present` when the member has not heard the count.
    case shared(ack: Int, present: Int?)
    /// A frame of its own: `nextFrame(for:)`.
    case own
}

extension Room {
    /// Opens a fan-out round: the content every member in step shares (see
    /// `RoundUpdate`). `nil` while frames are withheld for storage.
    public mutating func openRound() -> RoundUpdate? {
        guard !withholdingFrames else { return nil }
        let base = roundBase
        roundBase = log.stamp
        var update = Update(revision: revision, ack: 0, changes: [], gestures: [], joined: [], left: [])
        let peers = collect(after: base, for: nil, into: &update)
        return RoundUpdate(base: base, stamp: log.stamp, update: update, present: present, peers: peers)
    }

    /// Takes `client`'s part in `round`: in step, its cursor moves to the
    /// round's stamp and it shares the round's update; out of step, it needs
    /// `nextFrame(for:)`. One lookup, and the member is changed in place.
    public mutating func share(of round: RoundUpdate, for client: ClientID) -> RoundShare {
        var slot = -1
        return share(of: round, for: client, slot: &slot)
    }

    /// `share(of:for:)` for a caller that remembers the member's slot (a
    /// connection): `slot` is tried first and set to where the member is, so
    /// that a round reaches each member without a hash of its id (MemberTable).
    public mutating func share(of round: RoundUpdate, for client: ClientID, slot: inout Int) -> RoundShare {
        guard !withholdingFrames, let found = members.slot(of: client, hint: slot) else { return .nothing }
        slot = found
        let ownPeerChanged = !round.peers.isEmpty && round.peers.contains(client)
        return members[slot: found].share(round, ownPeerChanged: ownPeerChanged)
    }

    /// Appends to `update` the items of the change log after `cursor`, as
    /// `recipient` sees them (its own presence left out; `nil`: a round's
    /// shared content, which leaves out nobody). Returns the people whose
    /// presence changed.
    @discardableResult
    func collect(after cursor: UInt64, for recipient: ClientID?, into update: inout Update) -> Set<ClientID> {
        var peers: Set<ClientID> = []
        for item in log.items(after: cursor) {
            let stamp = log.stamp(of: item) ?? 0
            switch item {
            case let .control(c):
                update.changes.append(ControlChange(controlIndex: c, control: schema.controls[c].id, state: committed[c],
                                                    revision: revisions[c], by: committedBy[c], claim: claimedBy[c], stamp: stamp))
            case let .endedGesture(s):
                if let entry = slots[s].endedEntry { update.gestures.append(StampedGesture(entry: entry, stamp: stamp)) }
            case let .liveGesture(s):
                if let entry = slots[s].liveEntry { update.gestures.append(StampedGesture(entry: entry, stamp: stamp)) }
            case .presence:
                continue // `present` is added per recipient, for whoever has not heard the count
            case .batch:
                update.batch = lastBatch
            case let .peer(id):
                peers.insert(id)
                if id == recipient { continue }
                // Someone present but quiet (an announced member who rejoined
                // past the limit) counts as gone for those who knew them.
                if let present = members[id], present.announced {
                    update.joined.append(present.peer)
                } else if let remote = remotePeers[id] {
                    update.joined.append(remote.peer) // a view's peer served by another node
                } else if let joinedAt = departed[id], joinedAt <= cursor {
                    update.left.append(id) // only people the recipient was told about
                }
            }
        }
        return peers
    }
}

extension Member {
    /// This member's part in `round` (see `Room.share(of:for:)`).
    mutating func share(_ round: RoundUpdate, ownPeerChanged: Bool) -> RoundShare {
        guard takesFrames else { return .nothing }
        guard rejects.isEmpty, !ackDirty, cursor == round.base, !ownPeerChanged else {
            return rejects.isEmpty && !ackDirty && cursor >= round.stamp ? .nothing : .own
        }
        // Nothing in the log moved: `present` alone never makes a frame (it
        // rides on frames that go out anyway, as in `nextFrame`).
        guard round.stamp > round.base else { return .nothing }
        cursor = round.stamp
        let present = presentSeen == round.present ? nil : round.present
        presentSeen = round.present
        guard !round.isEmpty || present != nil else { return .nothing }
        ackSent = sentAck
        return .shared(ack: sentAck, present: present)
    }
}
