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
        if let refusal = orderAndRate(&member, client, seq: seq, cost: 1, at: now, into: &effects) {
            queue(refusal, to: &member, client, seq: seq, into: &effects)
        }
        return effects
    }

    /// `client`'s role, if in the room.
    public func role(of client: ClientID) -> Role? {
        members[client]?.role
    }
}
