extension Room {
    /// What a `restore` takes of its sender's rate, in messages: it reads a
    /// past state (a snapshot and up to `Storage.maxReplayRows` log rows) and
    /// commits a batch of every control (256 commit rows in a full room), so
    /// a member restores at most 5 times a second (bursts of 10) at the
    /// default 300 messages a second: a burst of 10 full-room restores is
    /// ~35 ms of the loop, where 60 had been 210 ms (bench/abuse/probe.py).
    public static let restoreCost: Double = 60

    /// The checks every write of a member passes before anything is done
    /// for it, in `apply`'s order: `seq` must increase (`bad_message`), the
    /// member's rate (`rate_limited`), then its role (`forbidden` for a
    /// viewer). Admitted: the seq is processed, its `ack` returned, a token
    /// of the member's rate spent, and the caller may do the costly part of
    /// the message (the server reads a past state for a `restore`) and then
    /// `applyAdmitted` it. Refused: the reject is queued and returned with
    /// the ack, if any, and the caller does nothing else.
    ///
    /// `cost`: the messages' worth of the member's rate the write takes (a
    /// restore, `restoreCost`); refused `rate_limited` unless that many are left.
    /// A client that is not a member (the HTTP API) is admitted with no
    /// effects, as `apply` lets it through.
    public mutating func admitWrite(_ client: ClientID, seq: Int, cost: Double = 1, at now: Moment) -> (admitted: Bool, effects: [Effect]) {
        admit(client, seq: seq, cost: cost, asWrite: true, at: now)
    }

    /// `admitWrite`, with the role's check only for a write (`asWrite`): a
    /// viewer's `focus` is admitted.
    mutating func admit(_ client: ClientID, seq: Int, cost: Double = 1, asWrite: Bool, at now: Moment) -> (admitted: Bool, effects: [Effect]) {
        guard var member = members[client] else { return (true, []) }
        defer { members[client] = member }
        var effects: [Effect] = []
        var refusal = orderAndRate(&member, client, seq: seq, cost: cost, at: now, into: &effects)
        if refusal == nil, asWrite, !member.role.mayWrite {
            refusal = Refusal(.forbidden, "a \(member.role.rawValue) may not change controls")
        }
        guard let refusal else { return (true, effects) }
        queue(refusal, to: &member, client, seq: seq, into: &effects)
        return (false, effects)
    }

    /// The first two checks of every message of a member, `apply`'s and
    /// `acknowledge`'s alike: `seq` must increase (`bad_message`, no ack);
    /// else the seq is processed, its `ack` appended, and `cost` messages'
    /// worth of the member's rate taken (`rate_limited` unless that many are
    /// left). `nil`: both passed.
    func orderAndRate(_ member: inout Member, _ client: ClientID, seq: Int, cost: Double, at now: Moment,
                      into effects: inout [Effect]) -> Refusal? {
        guard seq > member.lastSeq else {
            return Refusal(.badMessage, "seq \(seq) does not increase (last was \(member.lastSeq))")
        }
        member.process(seq: seq)
        effects.append(.ack(client: client, seq: seq))
        guard !member.bucket.take(at: now, perSecond: limits.messagesPerSecond, burst: limits.burst, cost: cost) else { return nil }
        return cost == 1 ? Refusal(.rateLimited, "more than \(Int(limits.messagesPerSecond)) messages a second")
            : Refusal(.rateLimited, "more than \(Int(limits.messagesPerSecond / cost)) of these a second (each costs \(Int(cost)) messages)")
    }

    /// `refusal` as a reject to `client`: queued for its frames and appended to `effects`.
    func queue(_ refusal: Refusal, to member: inout Member, _ client: ClientID, seq: Int, into effects: inout [Effect]) {
        let reject = Reject(to: client, seq: seq, code: refusal.code, message: refusal.message, holder: refusal.holder)
        member.queue(reject, limit: limits.pendingRejects)
        effects.append(.reject(reject))
    }

    /// A message `admitWrite` admitted: lapsed holds cancelled, then its
    /// operation performed as `apply` performs it after the checks (not run
    /// again: the seq is already processed and the token spent). A refusal
    /// of the operation itself (`busy`, `unknown_control`…) is one reject.
    public mutating func applyAdmitted(_ message: ClientMessage, from client: ClientID, at now: Moment) -> [Effect] {
        var effects = expire(at: now)
        performChecked(message, from: client, at: now, into: &effects)
        return effects
    }

    /// `perform`, with a refusal turned into a queued reject.
    mutating func performChecked(_ message: ClientMessage, from client: ClientID, at now: Moment, into effects: inout [Effect]) {
        let before = revision
        defer { if revision != before { durable?.writers.append(DurablePoint.Writer(client: client, seq: message.seq)) } }
        do {
            try perform(message.operation, from: client, at: now, into: &effects)
        } catch let refusal as Refusal {
            let reject = Reject(to: client, seq: message.seq, code: refusal.code, message: refusal.message, holder: refusal.holder)
            members[client]?.queue(reject, limit: limits.pendingRejects)
            effects.append(.reject(reject))
        } catch {
            preconditionFailure("only refusals are thrown")
        }
    }
}
