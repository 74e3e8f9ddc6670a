extension Room {
    /// Takes a message the room does not interpret (the server's `auth`
    /// refresh) as processed: the same ordering and rate checks as `apply`,
    /// and on success an `ack` like any message's. The room knows nothing of
    /// what the message said; the server may still refuse it afterwards with
    /// `refuse(_:seq:code:message:)`, which then only queues the reject.
    public mutating func acknowledge(_ client: ClientID, seq: Int, at now: Moment) -> [Effect] {
        guard var member = members[client] else { return [] }
        defer { members[client] = member }
        var effects: [Effect] = []
        let refusal: Refusal
        if seq <= member.lastSeq {
            refusal = Refusal(.badMessage, "seq \(seq) does not increase (last was \(member.lastSeq))")
        } else {
            member.process(seq: seq)
            effects.append(.ack(client: client, seq: seq))
            guard !member.bucket.take(at: now, perSecond: limits.messagesPerSecond, burst: limits.burst) else { return effects }
            refusal = Refusal(.rateLimited, "more than \(Int(limits.messagesPerSecond)) messages a second")
        }
        let reject = Reject(to: client, seq: seq, code: refusal.code, message: refusal.message)
        member.queue(reject, limit: limits.pendingRejects)
        effects.append(.reject(reject))
        return effects
    }

    /// `client`'s role, if in the room.
    public func role(of client: ClientID) -> Role? {
        members[client]?.role
    }
}
