import TandemCore
import TandemRedis
import TandemRelay
import TandemWire

/// Members in cluster mode (docs/scale-out.md): a connection registers with
/// the room's owner and gets its welcome when the owner's admission
/// arrives; its messages are relayed to the owner; its frames come from this
/// node's view of the room, by the same fan-out rounds as on a single node.
extension ReplicatedRooms {
    /// A connection joins `host`'s room: it registers with the owner at once
    /// when the view is in sync, else as soon as the view's snapshot arrives.
    func join(_ connection: Connection, to host: RoomHost, name: String, role: Role, since: String?, at now: Moment) {
        connection.host = host
        connection.relay.joinName = name
        connection.relay.joinRole = role
        connection.relay.since = since
        host.members[connection.client] = connection
        // Redis known to be gone: come back later. Still connecting (just started): wait for it.
        guard cluster.up || cluster.downSince == nil else {
            close(connection, code: 1013, reason: "cluster storage unavailable: try again later")
            return
        }
        let replica = cluster.replica(host.room.id)
        follow(replica, at: now)
        if replica.synced {
            register(connection, replica, at: now)
        } else {
            replica.awaitingSync.append(connection)
            seekOwner(replica, at: now)
        }
        connectionLine("open", "open \(connection.client) room=\(host.room.id) (registering with the owner)")
    }

    /// Registers `connection` with the room's owner: a join, or again after
    /// the owner changed (then with its ack, so that its order continues).
    func register(_ connection: Connection, _ replica: RoomReplica, at now: Moment) {
        guard connection.closing == nil, let host = connection.host else { return }
        connection.relay.registered = true
        connection.relay.registeredAt = now
        let ack = host.room.admission(of: connection.client)?.ack ?? 0
        relay(.register(node: cluster.node, client: connection.client, name: connection.relay.joinName,
                        role: connection.relay.joinRole, ack: ack),
              replica, host: host, at: now)
    }

    /// A whole text message from a member: a token refresh is checked here
    /// (the owner only acknowledges it); everything else goes to the owner
    /// as the client sent it, and the owner decodes and applies it.
    func receive(_ message: [UInt8], from connection: Connection, in host: RoomHost, at now: Moment) {
        let replica = cluster.replica(host.room.id)
        let decoded = MessageDecoder.decode(message)
        if case let .auth(seq, token) = decoded {
            metrics.messagesIn["auth", default: 0] += 1
            if let problem = delivery?.refreshProblem(connection, in: host, token: token, at: now) {
                queueLocalReject(connection, host: host, seq: seq, code: .unauthorized, message: problem)
            }
            relay(.acknowledge(client: connection.client, seq: seq), replica, host: host, at: now, seq: seq)
            return
        }
        metrics.messagesIn[decoded.kindName, default: 0] += 1
        let limits = host.room.limits
        if !connection.relay.bucket.take(at: now, perSecond: limits.messagesPerSecond, burst: limits.burst) {
            // Refused here, as the owner would: the flood goes no further than this node.
            if let seq = decoded.seq {
                queueLocalReject(connection, host: host, seq: seq, code: .rateLimited,
                                 message: "more than \(Int(limits.messagesPerSecond)) messages a second")
                throttled("reject-rate-limited", .info, "reject \(connection.client) seq=\(seq) code=rate_limited")
                noteRateLimited(connection, at: now)
            }
            return
        }
        if case let .preset(seq, request) = decoded, !request.isRecall {
            // Saved, renamed and deleted here (past the rate limit above, as on a single node),
            // by a Redis script (ReplicatedRooms+Presets.swift); the owner only acknowledges the seq.
            // A recall is a batch: the owner's.
            relay(.acknowledge(client: connection.client, seq: seq), replica, host: host, at: now, seq: seq)
            clusterPresetChange(connection, request, seq: seq, host: host)
            return
        }
        if let seq = decoded.seq, !replica.owned, !(cluster.up && replica.synced && !replica.awaitingOwner) {
            // Its answer could not be heard (the subscriber is down) or would come from an owner this
            // node has not caught up with yet: refused unsent, so that the sender knows at once.
            queueLocalReject(connection, host: host, seq: seq, code: .unavailable,
                             message: "this node is not in touch with the room's owner right now (\(cluster.up ? "catching up" : "redis unreachable")); nothing changed, try again")
            return
        }
        if let seq = decoded.seq, !noteRelayed(connection, seq: seq, replica, host: host, at: now) {
            queueLocalReject(connection, host: host, seq: seq, code: .unavailable,
                             message: "\(MemberRelay.relayedLimit) messages are waiting for the room's owner; nothing changed, try again")
            return
        }
        relay(.message(client: connection.client, bytes: message), replica, host: host, at: now, seq: decoded.seq)
    }

    /// A member's save, rename or delete of a preset, done by this node; a refusal is its reject
    /// (once Redis answered: it may follow the ack of its seq).
    private func clusterPresetChange(_ connection: Connection, _ request: PresetRequest, seq: Int, host: RoomHost) {
        let role = host.room.role(of: connection.client) ?? .viewer
        guard role.mayWrite else {
            queueLocalReject(connection, host: host, seq: seq, code: .forbidden, message: "a \(role.rawValue) may not \(request.action) presets")
            return
        }
        let by = host.room.peer(connection.client)?.name ?? connection.relay.joinName
        changePresetInCluster(request, in: host, client: connection.client.rawValue, by: by) { [weak self, weak connection] result in
            guard let self, let connection, connection.closing == nil, case let .failure(refusal) = result,
                  let host = connection.host else { return }
            self.queueLocalReject(connection, host: host, seq: seq, code: refusal.code, message: refusal.message)
        }
    }

    /// A member's connection closed: the view stops serving it, and the owner is told.
    func leave(_ connection: Connection, from host: RoomHost, at now: Moment) {
        host.members[connection.client] = nil
        view(host).view.dropLocal(connection.client)
        let replica = cluster.replica(host.room.id)
        replica.awaitingSync.removeAll { $0 === connection }
        if connection.relay.registered {
            relay(.leave(client: connection.client), replica, host: host, at: now)
        }
    }

    /// Sends `request` to the room's owner: handled here when this node owns
    /// the room, else published to the owner's channel. A message that cannot
    /// reach an owner (Redis down, no owner listening) is refused with
    /// `unavailable`, so its sender knows that nothing happened.
    func relay(_ request: RelayRequest, _ replica: RoomReplica, host: RoomHost, at now: Moment, seq: Int? = nil) {
        clusterMetrics.relayed[request.kindName, default: 0] += 1
        if ownsSurely(replica, at: now) { // ReplicatedRooms+Answers.swift
            ownerHandle(request, replica, host: host, at: now)
            return
        }
        let client = request.client
        if cluster.commands.stalledMs > Self.stalledRelayMs, case .message = request {
            // Redis has not answered this connection for a while (cut off, stalled): a message
            // sent now would likely be lost in flight, its outcome unknown. Refused unsent.
            if let seq, let client, let connection = host.members[client] {
                queueLocalReject(connection, host: host, seq: seq, code: .unavailable,
                                 message: "redis is not answering this node; nothing changed, try again")
            }
            return
        }
        let bytes = RelayCodec.encode(request)
        cluster.commands.send([Array("PUBLISH".utf8), Array(ClusterKeys.inbox(replica.id).utf8), bytes]) { [weak self] reply in
            guard let self else { return }
            let reached: Bool
            switch reply {
            case let .integer(n): reached = n > 0
            case let .error(message) where !message.hasPrefix("redis unavailable"):
                // Sent, and no answer (the connection dropped): it may have reached the owner,
                // and its answer may come or have been missed; the owner change or the
                // overdue answer settles it (`unknown` unless the owner answers).
                replica.doubt += 1
                self.seekOwner(replica, at: MonotonicClock.now())
                return
            default: reached = false
            }
            guard !reached else { return }
            self.clusterMetrics.relayFailures += 1
            let now = MonotonicClock.now()
            if client == Cluster.apiClient, let seq {
                self.finishAPIWrite(seq) { _ in .json(503, self.problem("unavailable", "the room's owner could not be reached; nothing changed, try again")) }
            } else if case .register = request {
                // Registered again once an owner answers (the snapshot of a new owner re-registers everyone).
            } else if let seq, let client, let connection = host.members[client] {
                self.queueLocalReject(connection, host: host, seq: seq, code: .unavailable,
                                      message: "the room's owner could not be reached; nothing changed, try again")
            }
            self.seekOwner(replica, at: now)
        }
    }

    /// Queues a reject for a local member in the view and wakes it.
    func queueLocalReject(_ connection: Connection, host: RoomHost, seq: Int, code: RejectCode, message: String) {
        answered(connection, seq: seq, host: host) // ReplicatedRooms+Answers.swift
        if connection.relay.refusedLocally.count >= MemberRelay.relayedLimit { connection.relay.refusedLocally.removeAll() }
        connection.relay.refusedLocally.insert(seq)
        let effects = view(host).view.refuse(connection.client, seq: seq, code: code, message: message)
        metrics.rejects[code, default: 0] += 1
        if !effects.isEmpty { arm(connection, at: MonotonicClock.now()) }
    }

    /// A commands connection whose oldest reply is this late (ms) relays no more members' messages.
    static let stalledRelayMs: UInt64 = 300

    /// Listens to the room's publications.
    func follow(_ replica: RoomReplica, at now: Moment) {
        guard !replica.subscribed else { return }
        replica.subscribed = true
        replica.lastHeard = now
        cluster.subscriber.subscribe(ClusterKeys.outbox(replica.id))
    }

    /// Asks the owner for a snapshot (at most twice a second).
    func askSnapshot(_ replica: RoomReplica, at now: Moment) {
        guard let host = rooms[replica.id] else { return }
        if let asked = replica.snapshotAsked, now.seconds(since: asked) < 0.5 { return }
        replica.snapshotAsked = now
        clusterMetrics.snapshotsAsked += 1
        relay(.wantSnapshot(node: cluster.node), replica, host: host, at: now)
    }
}

extension PresetRequest {
    var isRecall: Bool {
        if case .recall = self { true } else { false }
    }
}

extension RelayRequest {
    /// The member a request is about, if any.
    var client: ClientID? {
        switch self {
        case let .register(_, client, _, _, _): client
        case let .leave(client): client
        case let .message(client, _): client
        case let .acknowledge(client, _): client
        case .wantSnapshot: nil
        }
    }

    /// Its kind, for metrics.
    var kindName: String {
        switch self {
        case .register: "register"
        case .leave: "leave"
        case .message: "message"
        case .acknowledge: "acknowledge"
        case .wantSnapshot: "want_snapshot"
        }
    }
}

extension Inbound {
    /// The message's `seq`, when it could be read.
    var seq: Int? {
        switch self {
        case let .message(message): message.seq
        case let .refused(seq, _, _): seq
        case let .auth(seq, _): seq
        case let .preset(seq, _): seq
        case let .restore(seq, _): seq
        }
    }

    /// The message type, for metrics.
    var kindName: String {
        switch self {
        case let .message(message): message.operation.kindName
        case .refused: "invalid"
        case .auth: "auth"
        case .preset: "preset"
        case .restore: "restore"
        }
    }
}
