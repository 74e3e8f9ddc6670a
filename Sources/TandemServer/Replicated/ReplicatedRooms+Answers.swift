import TandemCore
import TandemRelay

/// Every message a member sends in cluster mode gets exactly one answer, and
/// an `ack` never stands for a message that got none (docs/reliability.md):
///
/// - a message relayed to the owner is noted (`MemberRelay.relayed`) and the
///   `ack` its frames carry stays below the oldest one not yet answered;
/// - the owner answers in its publication (an ack or a reject);
/// - when the owner changes first, this node answers what it never did:
///   `unavailable` (nothing changed) when this node heard every publication
///   since the message left, else `unknown` (it may have been applied);
/// - when nobody answers within `answerTimeout`, `unknown`;
/// - an owner that cannot be sure of its lease stops at once, and answers its
///   own members' messages whose turn Redis never took (`unavailable`) or
///   never answered for (`unknown` when the turn wrote commits).
extension ReplicatedRooms {
    /// How long a relayed message waits for its owner's answer before this
    /// node answers `unknown` itself (the owner died, its answer was lost).
    static let answerTimeout = 5.0

    /// The share of the lease an owner relies on after each grant (the rest
    /// is for clocks that run at different rates).
    static let leaseTrust = 0.9

    // MARK: members' side

    /// Notes `seq` as relayed and unanswered; `false` when too many are waiting already.
    func noteRelayed(_ connection: Connection, seq: Int, _ replica: RoomReplica, host: RoomHost, at now: Moment) -> Bool {
        guard connection.relay.relayed.count < MemberRelay.relayedLimit else { return false }
        let epoch = replica.owned ? replica.epoch : replica.viewEpoch
        connection.relay.relayed.append(RelayedMessage(seq: seq, epoch: epoch, doubt: replica.doubt, at: now))
        holdAck(connection, host: host)
        return true
    }

    /// The owner of `epoch` answered every relayed message up to `seq` that
    /// was sent toward it. A message sent toward an earlier owner is not
    /// answered by a later owner's ack: that owner may never have seen it
    /// (it went to a paused or dead owner), so it waits for its answer from
    /// `refuseUnanswered` (a new owner's first delta is taken in just before
    /// that; a CI robustness run lost 15 acknowledged messages so, 2026-12-04).
    func answered(_ connection: Connection, upTo seq: Int, epoch: Int, host: RoomHost) {
        let settled: (RelayedMessage) -> Bool = { $0.seq <= seq && $0.epoch >= epoch }
        guard connection.relay.relayed.contains(where: settled) else { return }
        connection.relay.relayed.removeAll(where: settled)
        holdAck(connection, host: host)
    }

    /// The owner (or this node) answered the relayed message `seq`.
    func answered(_ connection: Connection, seq: Int, host: RoomHost) {
        guard let index = connection.relay.relayed.firstIndex(where: { $0.seq == seq }) else { return }
        connection.relay.relayed.remove(at: index)
        if index == 0 { holdAck(connection, host: host) }
    }

    /// Whether `seq` of `connection` still waits for an answer.
    func awaitsAnswer(_ connection: Connection, seq: Int) -> Bool {
        connection.relay.relayed.contains { $0.seq == seq }
    }

    /// Keeps the view's `ack` for `connection` below its oldest unanswered message.
    private func holdAck(_ connection: Connection, host: RoomHost) {
        let before = host.room.sentAck(of: connection.client)
        view(host).view.holdAck(connection.client, below: connection.relay.relayed.first?.seq)
        if host.room.sentAck(of: connection.client) != before { arm(connection, at: MonotonicClock.now()) }
    }

    /// After an owner change: every message of `connection` sent toward an
    /// earlier owner and never answered gets its reject here, `unavailable`
    /// when this node cannot have missed its answer, else `unknown`. (Those
    /// this node's own authority took since it became the owner are answered
    /// by its publications.)
    func refuseUnanswered(_ connection: Connection, host: RoomHost, _ replica: RoomReplica) {
        let unanswered = connection.relay.relayed.filter { $0.epoch < replica.viewEpoch }
        guard !unanswered.isEmpty else { return }
        // With --redis-replicas an owner publishes a turn only after WAIT, so it may have
        // written a turn it never published (it died or paused in between): no silence proves
        // that a message was not applied.
        let unpublishedWrites = cluster.settings.redisReplicas > 0
        for message in unanswered {
            if message.doubt < replica.doubt || unpublishedWrites {
                queueLocalReject(connection, host: host, seq: message.seq, code: .unknown,
                                 message: "the room changed owner and this node may have missed the answer: this message may or may not have been applied; the room's state tells")
            } else {
                queueLocalReject(connection, host: host, seq: message.seq, code: .unavailable,
                                 message: "the room changed owner before this message was applied; nothing changed, try again")
            }
        }
    }

    /// Every housekeeping tick: messages unanswered for `answerTimeout` get `unknown` here.
    func answerOverdue(at now: Moment) {
        for replica in cluster.replicas.values {
            guard let host = rooms[replica.id] else { continue }
            for connection in host.members.values where !connection.relay.relayed.isEmpty && connection.closing == nil {
                let overdue = connection.relay.relayed.prefix { now.seconds(since: $0.at) >= Self.answerTimeout }
                guard !overdue.isEmpty else { continue }
                clusterMetrics.answersOverdue += overdue.count
                throttled("cluster-overdue", .warn, "room \(replica.id): \(overdue.count) message(s) of \(connection.client) unanswered for \(Int(Self.answerTimeout)) s: answered 'unknown'")
                for message in overdue {
                    queueLocalReject(connection, host: host, seq: message.seq, code: .unknown,
                                     message: "the room's owner did not answer in \(Int(Self.answerTimeout)) s: this message may or may not have been applied; the room's state tells")
                }
            }
        }
    }

    // MARK: the owner's side

    /// Whether this node owns the room and its lease is surely still its own.
    /// When the lease may have lapsed (no renewal granted in time: Redis cut
    /// off, stalled or slow, this process paused), the node steps down first,
    /// so that it never applies, answers or publishes past its lease.
    func ownsSurely(_ replica: RoomReplica, at now: Moment) -> Bool {
        guard replica.owned else { return false }
        if now < replica.leaseSureUntil { return true }
        clusterMetrics.leaseUnsure += 1
        stepDown(replica, epoch: replica.epoch,
                 reason: "no renewal of the lease granted in time (sure until \(Int(now.seconds(since: replica.leaseSureUntil) * 1000)) ms ago)")
        return false
    }

    /// A grant of the lease that was asked for at `sent`: sure until 90 % of the lease after it.
    func leaseGranted(_ replica: RoomReplica, sent: Moment) {
        let until = sent.adding(seconds: cluster.settings.lease * Self.leaseTrust)
        if until > replica.leaseSureUntil { replica.leaseSureUntil = until }
    }

    /// The turn's answers this node owes its own members when the turn will
    /// never be published: acks become `code` rejects, rejects stay.
    func answerLocally(acks: [MemberAck], rejects: [Reject], code: RejectCode, reason: String, host: RoomHost) {
        for reject in rejects {
            guard let connection = host.members[reject.to], awaitsAnswer(connection, seq: reject.seq) else { continue }
            queueLocalReject(connection, host: host, seq: reject.seq, code: reject.code, message: reject.message)
        }
        let rejected = Set(rejects.map { RejectKey(client: $0.to, seq: $0.seq) })
        for ack in acks {
            guard !rejected.contains(RejectKey(client: ack.client, seq: ack.seq)),
                  let connection = host.members[ack.client], awaitsAnswer(connection, seq: ack.seq) else { continue }
            let message = code == .unknown
                ? "\(reason): this message may or may not have been applied; the room's state tells"
                : "\(reason); nothing changed, try again"
            queueLocalReject(connection, host: host, seq: ack.seq, code: code, message: message)
        }
    }

    /// Redis answered a turn's write (or failed to): what it owed is settled.
    /// Written: its publication carries the answers. Refused by the fence:
    /// nothing was written (`unavailable`). No answer: its commits may or may
    /// not be in Redis (`unknown`; a turn with no commits changed nothing).
    func settleTurn(_ owed: TurnOwed, written: Bool?, reason: String, _ replica: RoomReplica) {
        replica.inFlight.removeAll { $0.epoch == owed.epoch && $0.sequence == owed.sequence }
        guard written != true, let host = rooms[replica.id] else { return }
        let code: RejectCode = written == nil && owed.commits > 0 ? .unknown : .unavailable
        answerLocally(acks: owed.acks, rejects: owed.rejects, code: code, reason: reason, host: host)
    }
}

private struct RejectKey: Hashable {
    var client: ClientID
    var seq: Int
}
