extension Room {
    /// Whether `client` has a frame waiting: a reject, an `ack` to send, or a change since its last frame.
    public func hasPendingFrame(for client: ClientID) -> Bool {
        guard !withholdingFrames, let member = members[client], member.takesFrames else { return false }
        return !member.rejects.isEmpty || member.ackDirty || member.cursor < log.stamp
    }

    /// Takes the next frame for `client`: its oldest pending reject, or else one
    /// update with everything that changed since its previous frame. `nil` when
    /// there is nothing to send. The server calls this once per writable
    /// callback and writes the frame whole.
    public mutating func nextFrame(for client: ClientID) -> Frame? {
        guard !withholdingFrames else { return nil }
        // The member is read and changed in place (`members[client]?.…`),
        // never copied out of the dictionary and back.
        if let reject = members[client]?.takeReject() { return .reject(reject) }
        guard let (cursor, ack, acked) = members[client]?.pending(upTo: log.stamp) else { return nil }
        var update = Update(revision: revision, ack: ack, changes: [], gestures: [], joined: [], left: [])
        collect(after: cursor, for: client, into: &update)
        let present = self.present
        members[client]?.caughtUp(to: log.stamp, present: present, into: &update)
        // Items can leave the log before this member saw them (someone who came
        // and went between two frames): then there is nothing to send.
        let empty = update.changes.isEmpty && update.gestures.isEmpty && update.joined.isEmpty && update.left.isEmpty
            && update.present == nil && update.batch == nil
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

    /// Rejects waiting to be sent to `client`.
    public func waitingRejects(for client: ClientID) -> Int {
        members[client]?.rejects.count ?? 0
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

    /// The number of people in the room; in a view, of its local members
    /// (`present` counts everyone).
    public var memberCount: Int { members.count }

    /// Whether `client` holds any thumb.
    public func holdsAnything(_ client: ClientID) -> Bool {
        !(members[client]?.holds.isEmpty ?? true)
    }
}
