import TandemCore
import TandemRedis
import TandemRelay
import TandemStorage
import TandemWire

/// Every node's side of a room in cluster mode (docs/scale-out.md, "Views"):
/// the owner's publications absorbed into the view in order, the owner's
/// health watched, and the room lifecycle followed.
extension ReplicatedRooms {
    /// Starts the cluster's connections and channels (from `run()`).
    func startCluster() {
        cluster.commands.onState = { [weak self] state in self?.clusterStateChanged(state, connection: "commands") }
        cluster.subscriber.onState = { [weak self] state in self?.clusterStateChanged(state, connection: "subscriber") }
        cluster.subscriber.onMessage = { [weak self] channel, payload in self?.clusterMessage(channel: channel, payload: payload) }
        cluster.subscriber.subscribe(ClusterKeys.lifecycle)
        startClusterWatch() // DeliveryProbe.swift: the Sentinel monitor and the delivery probe
        cluster.commands.start()
        cluster.subscriber.start()
    }

    /// Redis went away or came back. Gone: this node cannot write, so every
    /// owned room is given up (the views keep what was published). Back on
    /// the subscriber: publications may have been missed, so every view
    /// asks for a snapshot.
    func clusterStateChanged(_ state: RedisConnection.State, connection: String) {
        let now = MonotonicClock.now()
        switch state {
        case .ready:
            if cluster.up, cluster.downSince != nil {
                log.info("redis: reachable again after \(Int(now.seconds(since: cluster.downSince!))) s")
                cluster.downSince = nil
                cluster.downReason = nil
            }
            if connection == "subscriber" {
                // Lifecycle messages may have been missed: compare the rooms once the subscription is surely in place.
                cluster.reconcileDue = now.adding(seconds: 0.3)
                for replica in cluster.replicas.values where replica.subscribed {
                    replica.synced = false
                    replica.snapshotAsked = nil
                    replica.doubt += 1 // answers may have been published meanwhile (ReplicatedRooms+Answers.swift)
                }
            }
            if cluster.up {
                for replica in cluster.replicas.values where !replica.synced && rooms[replica.id].map({ !$0.members.isEmpty }) ?? false {
                    seekOwner(replica, at: now)
                }
            }
        case let .down(reason):
            if cluster.downSince == nil {
                cluster.downSince = now
                log.error("redis: unreachable (\(connection)): \(reason); writes are refused with 'unavailable' until it is back")
            }
            cluster.downReason = reason
            for replica in cluster.replicas.values where replica.owned {
                stepDown(replica, epoch: replica.epoch, reason: "redis unreachable")
            }
        case .connecting:
            break
        }
    }

    /// A message on a channel: a room's publication, a request to an owner, or the lifecycle.
    func clusterMessage(channel: [UInt8], payload: [UInt8]) {
        let name = String(decoding: channel, as: UTF8.self)
        if name == cluster.probe.channel { return deliveryProbeHeard(payload) } // DeliveryProbe.swift
        let now = MonotonicClock.now()
        if name == ClusterKeys.lifecycle {
            if payload.starts(with: ClusterPresets.prefix.utf8) { return presetNoteHeard(payload) } // ReplicatedRooms+Presets.swift
            lifecycle(String(decoding: payload, as: UTF8.self), at: now)
            return
        }
        guard name.hasPrefix("tandem:{"), let close = name.lastIndex(of: "}") else { return }
        let id = String(name[name.index(name.startIndex, offsetBy: 8)..<close])
        let suffix = name[close...]
        guard let host = rooms[id] else { return }
        let replica = cluster.replica(id)
        if suffix == "}:in" {
            // Unsure of its lease, the owner steps down and leaves the request unanswered:
            // the member's node answers it once the room has a new owner.
            guard ownsSurely(replica, at: now) else { return }
            do {
                let request = try RelayCodec.decodeRequest(payload)
                if case let .message(client, _) = request, host.members[client] != nil {
                    // This node's own member, relayed while another node owned the room: the view
                    // refuses it when it sees this node's first snapshot (`refuseUnanswered`), so it
                    // must not be applied here too. This node's members reach it directly now.
                    return
                }
                ownerHandle(request, replica, host: host, at: now)
            } catch {
                throttled("cluster-bad-request", .warn, "room \(id): an unreadable request: \(error)")
            }
        } else if suffix == "}:out" {
            absorb(payload, replica, host: host, at: now)
        }
    }

    /// One publication of the room's owner, absorbed into the view when it
    /// is the next one; after a gap the view waits for a snapshot.
    private func absorb(_ payload: [UInt8], _ replica: RoomReplica, host: RoomHost, at now: Moment) {
        let head: (kind: UInt8, epoch: Int, sequence: Int, owner: String)
        do {
            head = try RelayCodec.peekPublication(payload)
        } catch {
            throttled("cluster-bad-publication", .warn, "room \(replica.id): an unreadable publication: \(error)")
            return
        }
        guard head.epoch >= replica.viewEpoch else { return } // a former owner's, fenced out since
        replica.lastHeard = now
        // A delta that does not follow the last publication absorbed is not
        // even decoded: the view waits for a snapshot.
        if head.kind == RelayCodec.deltaKind,
           !(replica.synced && head.epoch == replica.viewEpoch && head.sequence == replica.viewSequence + 1) {
            if head.epoch > replica.viewEpoch, head.sequence == 1,
               case let .delta(_, _, _, first)? = try? RelayCodec.decodePublication(payload, schema: host.room.schema) {
                // A new owner's first turn, just before its first snapshot: its answers are kept for then.
                replica.answersBeforeSnapshot = (head.epoch, head.sequence, first)
                askSnapshot(replica, at: now)
                return
            }
            if replica.synced {
                replica.doubt += 1
                clusterMetrics.publicationGaps += 1
                log.info("room \(replica.id): publication \(head.epoch)/\(head.sequence) after \(replica.viewEpoch)/\(replica.viewSequence): asking for a snapshot")
                replica.synced = false
            }
            askSnapshot(replica, at: now)
            return
        }
        let publication: RelayPublication
        do {
            publication = try RelayCodec.decodePublication(payload, schema: host.room.schema)
        } catch {
            throttled("cluster-bad-publication", .warn, "room \(replica.id): an unreadable publication: \(error)")
            return
        }
        switch publication {
        case let .delta(_, sequence, _, delta):
            replica.viewSequence = sequence
            absorbDelta(delta, host: host, at: now)
            oscReact(to: delta, room: replica.id)
        case let .snapshot(epoch, sequence, owner, snapshot):
            let newOwner = epoch != replica.viewEpoch
            view(host).view.absorb(snapshot, isLocal: { host.members[$0] != nil })
            replica.viewEpoch = epoch
            replica.viewSequence = sequence
            replica.viewOwner = owner
            replica.synced = true
            replica.awaitingOwner = false
            replica.snapshotAsked = nil
            if let kept = replica.answersBeforeSnapshot {
                replica.answersBeforeSnapshot = nil
                if kept.epoch == epoch, kept.sequence + 1 == sequence {
                    // The first delta's answers, over the snapshot that already shows its changes.
                    absorbDelta(RoomDelta(revision: snapshot.revision, present: kept.delta.present, acks: kept.delta.acks,
                                          rejects: kept.delta.rejects, admitted: kept.delta.admitted), host: host, at: now)
                } else {
                    replica.doubt += 1 // it was not that owner's first delta after all: its answers are lost
                }
            }
            if newOwner {
                log.info("room \(replica.id): owner \(owner) (epoch \(epoch)), revision \(snapshot.revision)")
                oscOwnerChanged(room: replica.id)
            }
            let waiting = replica.awaitingSync
            replica.awaitingSync.removeAll()
            // Those waiting register now; after an owner change everyone
            // registers again (the new owner knows only what Redis kept), and
            // anyone still unwelcomed may have missed its admission in a
            // publication this view skipped. Registering is idempotent.
            if newOwner {
                for connection in host.members.values where connection.welcomed { refuseUnanswered(connection, host: host, replica) }
            }
            for connection in waiting { register(connection, replica, at: now) }
            let writes = replica.apiAwaitingSync
            replica.apiAwaitingSync.removeAll()
            for write in writes {
                relay(.message(client: Cluster.apiClient, bytes: write.bytes), replica, host: host, at: now, seq: write.seq)
            }
            for connection in host.members.values where !waiting.contains(where: { $0 === connection })
                && (newOwner || !connection.welcomed) {
                register(connection, replica, at: now)
            }
            broadcast(in: host, at: now)
        }
    }

    /// A delta taken into the view and whoever it concerns woken; a reject this
    /// node already sent itself for a seq is not sent twice.
    private func absorbDelta(_ delta: RoomDelta, host: RoomHost, at now: Moment) {
        var delta = delta
        delta.rejects.removeAll { host.members[$0.to]?.relay.refusedLocally.contains($0.seq) ?? false }
        view(host).view.absorb(delta, isLocal: { host.members[$0] != nil })
        react(to: delta, host: host, at: now)
    }

    /// Wakes whoever a delta concerns: newcomers get their welcome, writes
    /// over HTTP their answer; then the outcome is routed like a local
    /// room's (`route`: members with an ack or a reject get their frame at
    /// once, everyone else the next round).
    private func react(to delta: RoomDelta, host: RoomHost, at now: Moment) {
        let epoch = cluster.replicas[host.room.id]?.viewEpoch ?? 0
        for admission in delta.admitted {
            host.members[admission.peer.client]?.relay.admittedEpoch = epoch
            guard let connection = host.members[admission.peer.client], !connection.welcomed, connection.closing == nil else { continue }
            sendWelcome(host.room.welcome(for: connection.client), to: connection, in: host, since: connection.relay.since,
                        log: "welcome", "welcome \(connection.client) room=\(host.room.id) name=\(admission.peer.name)", at: now)
        }
        for ack in delta.acks where ack.client == Cluster.apiClient {
            finishAPIWrite(ack.seq) { pending in apiWriteAnswer(pending, delta) }
        }
        for reject in delta.rejects where reject.to == Cluster.apiClient {
            finishAPIWrite(reject.seq) { _ in .reject(reject) }
        }
        var outcome = RoomOutcome()
        for ack in delta.acks {
            guard let connection = host.members[ack.client] else { continue }
            answered(connection, upTo: ack.seq, epoch: epoch, host: host)
            outcome.acked.append(ack.client)
        }
        // Only this node's members' rejects: the delta carries every node's (this node's OSC
        // writers' are counted as their drops, `oscReact`).
        for reject in delta.rejects {
            guard let connection = host.members[reject.to] else { continue }
            answered(connection, seq: reject.seq, host: host)
            outcome.rejects.append(reject)
        }
        outcome.offered = delta.changes.count + delta.gestures.count
        outcome.committed = delta.changes.map(\.revision)
        outcome.everyone = outcome.offered > 0 || !delta.joined.isEmpty || !delta.left.isEmpty || delta.presenceRefreshed
        route(outcome, in: host, at: now) // RoomServiceBase+Routing.swift, as for local rooms
    }

    // MARK: housekeeping

    /// Every 250 ms: owners renew their leases, cancel lapsed holds, refresh
    /// presence and give up rooms nobody is in; views whose owner fell silent
    /// look for a new one; the node writes its heartbeat.
    func clusterTick(at now: Moment) {
        if now.seconds(since: cluster.lastHeartbeat) >= 1 {
            cluster.lastHeartbeat = now
            heartbeat()
        }
        for (seq, pending) in cluster.pendingAPI where now >= pending.deadline {
            finishAPIWrite(seq) { _ in .json(503, problem("unavailable", "the room's owner did not answer in time: the write may or may not have been applied; read the room and try again")) }
        }
        answerOverdue(at: now) // ReplicatedRooms+Answers.swift
        guard cluster.up else { return }
        if let due = cluster.reconcileDue, now >= due {
            cluster.reconcileDue = now.adding(seconds: 10)
            reconcileRooms(at: now)
        }
        for (id, replica) in cluster.replicas {
            guard let host = rooms[id] else { continue }
            if replica.owned {
                ownerTick(replica, host: host, at: now)
            } else if !host.members.isEmpty || !replica.apiAwaitingSync.isEmpty {
                if !replica.synced || now.seconds(since: replica.lastHeard) >= cluster.settings.lease * 0.6 {
                    seekOwner(replica, at: now)
                } else {
                    reregisterLost(replica, host: host, at: now)
                }
            } else if replica.subscribed, now.seconds(since: replica.lastHeard) >= 10 {
                // Nobody here for a while: stop following the room.
                replica.subscribed = false
                replica.synced = false
                cluster.subscriber.unsubscribe(ClusterKeys.outbox(id))
            }
        }
    }

    private func ownerTick(_ replica: RoomReplica, host: RoomHost, at now: Moment) {
        guard ownsSurely(replica, at: now), let authority = replica.authority else { return }
        if now.seconds(since: replica.lastRenewal) >= cluster.settings.lease / 4 {
            replica.lastRenewal = now
            let epoch = replica.epoch
            let sent = now
            cluster.commands.eval(ClusterScripts.renew, keys: [Array(ClusterKeys.lease(replica.id).utf8)],
                                  args: [Array(replica.holder.utf8), Array(cluster.leaseMs.utf8)]) { [weak self] reply in
                guard let (renewed, holder) = ClusterScripts.answer(reply) else {
                    self?.stepDown(replica, epoch: epoch, reason: "renewing the lease failed: \(reply)")
                    return
                }
                if !renewed {
                    self?.stepDown(replica, epoch: epoch, reason: "the lease is held by '\(holder.isEmpty ? "nobody" : holder)'")
                } else if replica.epoch == epoch {
                    self?.leaseGranted(replica, sent: sent)
                }
            }
        }
        if authority.room.hasLapsedHold(at: now), !(replica.authority?.expire(at: now) ?? []).isEmpty {
            cluster.markDirty(replica)
        }
        if replica.presenceRefresh.due(authority.room.present, at: now) {
            replica.authority?.refreshPresence()
            cluster.markDirty(replica)
        }
        if now.seconds(since: replica.lastPublished) >= Self.ownerHeartbeat { cluster.markDirty(replica) }
        if authority.room.present == 0 && host.members.isEmpty {
            let since = replica.emptySince ?? now
            replica.emptySince = since
            if now.seconds(since: since) >= Self.emptyLease {
                log.info("room \(replica.id): nobody in it for \(Int(Self.emptyLease)) s: giving up its lease")
                giveUp(replica)
            }
        } else {
            replica.emptySince = nil
        }
    }

    /// Members the current owner never admitted (their registration was lost:
    /// sent while Redis was unreachable, or to an owner that went away)
    /// register again, at most once a second.
    private func reregisterLost(_ replica: RoomReplica, host: RoomHost, at now: Moment) {
        guard replica.synced, cluster.up else { return }
        for connection in host.members.values
        where connection.relay.registered && connection.closing == nil && connection.relay.admittedEpoch != replica.viewEpoch
            && now.seconds(since: connection.relay.registeredAt) >= 1 {
            register(connection, replica, at: now)
        }
    }

    /// How long an owner keeps the lease of a room nobody is in.
    static let emptyLease = 30.0

    /// The node's entry in `tandem:node:ID` (expires after 3 s without renewal), for `/api/cluster`.
    private func heartbeat() {
        let owned = cluster.replicas.values.filter(\.owned).map(\.id).sorted().joined(separator: ",")
        let key = ClusterKeys.node(cluster.node)
        cluster.commands.send(["HSET", key, "address", "\(config.httpScheme)://\(config.host):\(delivery?.listeningPort ?? 0)",
                               "connections", String(delivery?.connectionCount ?? 0), "owned", owned,
                               "time", String(WallClock.milliseconds())], reply: nil)
        cluster.commands.send(["PEXPIRE", key, "3000"], reply: nil)
        cluster.commands.send(["SADD", ClusterKeys.nodes, cluster.node], reply: nil)
    }

    // MARK: lifecycle

    /// `created ROOM`, `replaced ROOM` or `deleted ROOM` from any node's admin API.
    private func lifecycle(_ text: String, at now: Moment) {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return }
        let id = parts[1]
        switch parts[0] {
        case "created", "replaced":
            reloadRoom(id, at: now)
        case "deleted":
            forgetRoom(id, reason: "deleted")
        case "presets":
            // Another node (or this one) changed the room's presets: read them again, and tell the members here.
            presetBooks[id] = nil
            if let host = rooms[id] { announcePresetsHere(host) }
        default:
            break
        }
    }

    /// Serves exactly the rooms Redis lists: a room created elsewhere is
    /// added, one deleted elsewhere is dropped, and (right after a reconnect)
    /// one whose schema changed is reloaded — for lifecycle messages this node
    /// could not hear.
    func reconcileRooms(at now: Moment) {
        let ids: Set<String>
        do {
            ids = Set(try cluster.store.roomIDs())
        } catch {
            log.warn("rooms: cannot list them in redis: \(error)")
            return
        }
        for id in ids where rooms[id] == nil { reloadRoom(id, at: now) }
        for id in rooms.order where !ids.contains(id) { forgetRoom(id, reason: "deleted") }
    }

    /// Reads room `id` from Redis and serves it: a new room is added; a room
    /// whose schema changed is replaced (its members closed with 1012, the
    /// owner giving up its lease so that the next one starts from the new schema).
    func reloadRoom(_ id: String, at now: Moment) {
        let loaded: RedisRoomStore.Loaded?
        do {
            loaded = try cluster.store.load(id)
        } catch {
            log.error("room \(id): cannot reload: \(error.description)")
            return
        }
        guard let loaded else { return }
        if let old = rooms[id] {
            guard old.room.schema != loaded.stored.schema else { return }
            rooms.schemaChangedAt[id] = old.room.revision
            forgetRoom(id, reason: "replaced")
            presetBooks[id] = nil
            for connection in old.members.values { close(connection, code: 1012, reason: "room schema changed") }
        }
        rooms[id] = Self.makeView(loaded, config: config)
        oscRoomChanged(id)
        log.info("room \(id) served (from redis)")
    }

    /// Stops serving room `id` here: the lease is given up, members closed with 4404 when it was deleted.
    func forgetRoom(_ id: String, reason: String) {
        if let replica = cluster.replicas[id] {
            giveUp(replica)
            if replica.subscribed { cluster.subscriber.unsubscribe(ClusterKeys.outbox(id)) }
            cluster.replicas[id] = nil
        }
        guard reason == "deleted", let host = rooms[id] else { return }
        rooms[id] = nil
        oscRoomChanged(id)
        for connection in host.members.values { close(connection, code: 4404, reason: "room deleted") }
        log.info("room \(id) deleted: closing \(host.members.count) connection(s) with 4404")
    }

    /// A view of a room as Redis has it.
    static func makeView(_ loaded: RedisRoomStore.Loaded, config: ServerConfig) -> ViewHost {
        var limits = RoomLimits()
        limits.presence = config.presenceLimit
        return ViewHost(view: RoomView(schema: loaded.stored.schema, committed: loaded.stored.committed, revisions: loaded.stored.revisions,
                                       revision: loaded.stored.revision, committedBy: loaded.by, limits: limits))
    }
}
