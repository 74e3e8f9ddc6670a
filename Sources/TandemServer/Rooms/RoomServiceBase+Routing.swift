import TandemCore

/// What a turn of a room left for the people in it, whichever kind of rooms
/// produced it: a local room's effects (`LocalRooms.dispatch`) or a
/// publication absorbed into a view (`ReplicatedRooms.react`). Both are
/// routed the same way (`route`).
struct RoomOutcome {
    /// Members whose `ack` moved.
    var acked: [ClientID] = []
    /// Rejects, each to its one recipient.
    var rejects: [Reject] = []
    /// Commits and gesture entries everyone is offered (conflation counts them).
    var offered = 0
    /// The revisions committed, for the delivery histogram.
    var committed: [Int] = []
    /// Whether everyone should see something: a change, a join or leave, a presence refresh.
    var everyone = false
    /// Whether the acks may ride the fan-out round instead of a frame of
    /// their own: a drag move's, when the move gives everyone something to
    /// see (so a round is coming, within the deadline). Nobody waits on a
    /// move's ack (a drag's `end` is acked at once, as is every other
    /// message), and a frame of its own per move cost the server about five
    /// times a round's frame (docs/benchmarks.md, "Per frame: …").
    var ackRidesRound = false
}

extension RoomServiceBase {
    /// The one effect router: an ack or a reject wakes its one recipient at
    /// once (a reject is counted and logged, and a flood of `rate_limited`
    /// closes its sender); what everyone should see goes out by the room's
    /// fan-out round, and so does a drag move's ack (`ackRidesRound`). A
    /// reject to someone who is not a connection here (an OSC writer) is
    /// counted, and logged unless the bridge logs it as a drop.
    func route(_ outcome: RoomOutcome, in host: RoomHost, at now: Moment) {
        for reject in outcome.rejects {
            metrics.rejects[reject.code, default: 0] += 1
            if let connection = host.members[reject.to] {
                logReject(reject)
                arm(connection, at: now)
                if reject.code == .rateLimited { noteRateLimited(connection, at: now) }
            } else if !isOSCWriter(reject.to, in: host) {
                logReject(reject)
            }
        }
        if !(outcome.ackRidesRound && outcome.everyone) {
            for client in outcome.acked {
                if let connection = host.members[client] { arm(connection, at: now) }
            }
        }
        guard outcome.everyone else { return }
        host.offered += outcome.offered
        for revision in outcome.committed { host.noteCommit(revision: revision, arrival: now) }
        broadcast(in: host, at: now)
    }
}
