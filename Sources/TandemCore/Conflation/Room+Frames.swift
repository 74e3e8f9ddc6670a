extension Room {
    /// Whether `client` has a frame waiting: a reject, an `ack` to send, or a change since its last frame.
    public func hasPendingFrame(for client: ClientID) -> Bool {
        guard !withholdingFrames, let member = members[client] else { return false }
        return !member.rejects.isEmpty || member.ackDirty || member.cursor < log.stamp
    }

    /// Takes the next frame for `client`: its oldest pending reject, or else one
    /// update with everything that changed since its previous frame. `nil` when
    /// there is nothing to send. The server calls this once per writable
    /// callback and writes the frame whole.
    public mutating func nextFrame(for client: ClientID) -> Frame? {
        guard !withholdingFrames, var member = members[client] else { return nil }
        defer { members[client] = member }
        if !member.rejects.isEmpty {
            return .reject(member.rejects.removeFirst())
        }
        guard member.ackDirty || member.cursor < log.stamp else { return nil }
        var update = Update(revision: revision, ack: member.ack, changes: [], gestures: [], joined: [], left: [])
        for item in log.items(after: member.cursor) {
            let stamp = log.stamp(of: item) ?? 0
            switch item {
            case let .control(c):
                update.changes.append(ControlChange(controlIndex: c, control: schema.controls[c].id, state: committed[c],
                                                    revision: revisions[c], by: committedBy[c], stamp: stamp))
            case let .endedGesture(s):
                if let entry = slots[s].endedEntry { update.gestures.append(StampedGesture(entry: entry, stamp: stamp)) }
            case let .liveGesture(s):
                if let entry = slots[s].liveEntry { update.gestures.append(StampedGesture(entry: entry, stamp: stamp)) }
            case .presence:
                continue // `present` is added below for whoever has not heard the count
            case let .peer(id):
                if id == client { continue }
                // Someone present but quiet (an announced member who rejoined
                // past the limit) counts as gone for those who knew them.
                if let present = members[id], present.announced {
                    update.joined.append(present.peer)
                } else if let joinedAt = departed[id], joinedAt <= member.cursor {
                    update.left.append(id) // only people this member was told about
                }
            }
        }
        member.cursor = log.stamp
        if member.presentSeen != members.count {
            member.presentSeen = members.count
            update.present = members.count
        }
        let acked = member.ackDirty
        member.ackDirty = false
        // Items can leave the log before this member saw them (someone who came
        // and went between two frames): then there is nothing to send.
        let empty = update.changes.isEmpty && update.gestures.isEmpty && update.joined.isEmpty && update.left.isEmpty
            && update.present == nil
        return empty && !acked ? nil : .update(update)
    }

    /// Holds every frame back until `releaseFrames()`: a commit is broadcast and
    /// acknowledged only once storage has written it, so nobody ever sees a
    /// value a crash could take back. The server withholds when a commit
    /// happens and releases after the turn's transaction.
    public mutating func withholdFrames() {
        withholdingFrames = true
    }

    /// Lets frames go out again; the server then wakes every member with `hasPendingFrame`.
    public mutating func releaseFrames() {
        withholdingFrames = false
    }

    /// Rejects dropped for `client` because too many were waiting.
    public func droppedRejects(for client: ClientID) -> Int {
        members[client]?.droppedRejects ?? 0
    }
}

extension Room {
    /// Records a reject for a message the wire module refused before it became
    /// a `ClientMessage` (not JSON, wrong shape). When its `seq` could be read
    /// and is above the member's last, the `ack` moves to it, as for any
    /// processed message; otherwise ordering and ack are untouched.
    public mutating func refuse(_ client: ClientID, seq: Int?, code: RejectCode, message: String) -> [Effect] {
        let reject = Reject(to: client, seq: seq ?? 0, code: code, message: message)
        var effects: [Effect] = []
        if var member = members[client] {
            if let seq, seq > member.lastSeq {
                member.process(seq: seq)
                effects.append(.ack(client: client, seq: seq))
            }
            member.queue(reject, limit: limits.pendingRejects)
            members[client] = member
        }
        effects.append(.reject(reject))
        return effects
    }

    /// `client` as others see them, if in the room.
    public func peer(_ client: ClientID) -> Peer? {
        members[client]?.peer
    }

    /// The number of people in the room.
    public var memberCount: Int { members.count }

    /// Whether `client` holds any thumb.
    public func holdsAnything(_ client: ClientID) -> Bool {
        !(members[client]?.holds.isEmpty ?? true)
    }
}
