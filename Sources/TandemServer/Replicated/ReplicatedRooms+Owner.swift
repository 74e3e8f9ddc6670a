import TandemCore
import TandemRedis
import TandemRelay
import TandemStorage
import TandemWire

/// The owner's side of a room in cluster mode (docs/scale-out.md,
/// "Ownership"): takes the lease, applies every member's doings to the
/// authority in the order they arrive, and after each turn writes the
/// turn's commits and publishes its delta in one fenced script.
extension ReplicatedRooms {
    /// Looks for the room's owner: takes the lease when nobody holds it;
    /// otherwise asks the holder for a snapshot when the view needs one.
    func seekOwner(_ replica: RoomReplica, at now: Moment) {
        guard !replica.owned, !replica.acquiring, cluster.up else { return }
        replica.acquiring = true
        let id = replica.id
        let sent = now
        cluster.commands.eval(ClusterScripts.acquire, keys: [ClusterKeys.lease(id), ClusterKeys.epoch(id)].map { Array($0.utf8) },
                              args: [cluster.node, cluster.leaseMs].map { Array($0.utf8) }) { [weak self] reply in
            replica.acquiring = false
            guard let self else { return }
            let now = MonotonicClock.now()
            guard let (won, holder) = ClusterScripts.answer(reply) else {
                self.throttled("cluster-acquire", .warn, "room \(id): taking the lease failed: \(reply)")
                return
            }
            if won, cluster.settings.redisReplicas > 0 {
                // The new epoch must survive a failover before it is used (two owners never share one).
                self.waitForReplicas() { confirmed in
                    guard confirmed else {
                        self.throttled("cluster-acquire", .warn, "room \(id): the lease's epoch was not confirmed by \(self.cluster.settings.redisReplicas) replica(s): giving it up")
                        self.release(replica, holder: holder)
                        return
                    }
                    self.takeOwnership(replica, holder: holder, leaseFrom: sent, at: MonotonicClock.now())
                }
            } else if won {
                self.takeOwnership(replica, holder: holder, leaseFrom: sent, at: now)
            } else if !replica.synced || Self.epoch(of: holder) > replica.viewEpoch {
                self.askSnapshot(replica, at: now)
            }
        }
    }

    /// The epoch in a lease value `NODE EPOCH` (0 when unreadable).
    static func epoch(of holder: String) -> Int {
        Int(holder.split(separator: " ").last ?? "") ?? 0
    }

    /// This node now holds the lease: the authority is built from Redis,
    /// this node's members are registered with it, and a snapshot is
    /// published first thing, so that every view follows the new owner.
    func takeOwnership(_ replica: RoomReplica, holder: String, leaseFrom sent: Moment, at now: Moment) {
        guard let host = rooms[replica.id] else {
            release(replica, holder: holder)
            return
        }
        let loaded: RedisRoomStore.Loaded
        do {
            guard let found = try cluster.store.load(replica.id) else {
                release(replica, holder: holder)
                return
            }
            loaded = found
        } catch {
            log.error("room \(replica.id): cannot take over: \(error.description)")
            release(replica, holder: holder)
            return
        }
        var limits = RoomLimits()
        limits.presence = config.presenceLimit
        let authority = RoomAuthority(schema: loaded.stored.schema, committed: loaded.stored.committed,
                                      revisions: loaded.stored.revisions, revision: loaded.stored.revision,
                                      committedBy: loaded.by, limits: limits)
        replica.dropAuthority()
        replica.authority = authority
        loadSeries(loaded.stored.schema) // ReplicatedRooms+Series.swift
        replica.holder = holder
        replica.epoch = Self.epoch(of: holder)
        replica.lastRenewal = now
        leaseGranted(replica, sent: sent) // ReplicatedRooms+Answers.swift
        replica.presenceRefresh.restart(at: now)
        cluster.subscriber.subscribe(ClusterKeys.inbox(replica.id))
        clusterMetrics.ownershipGained += 1
        log.info("room \(replica.id): this node owns it now (epoch \(replica.epoch), revision \(authority.revision))")
        for connection in host.members.values where connection.closing == nil {
            connection.relay.registered = true
            let ack = host.room.admission(of: connection.client)?.ack ?? 0
            ownerHandle(.register(node: cluster.node, client: connection.client, name: connection.relay.joinName,
                                  role: connection.relay.joinRole, ack: ack),
                        replica, host: host, at: now)
        }
        replica.awaitingSync.removeAll()
        replica.snapshotWanted = true
        cluster.markDirty(replica)
        oscTookOwnership(authority)
    }

    /// Gives up a lease this node took but cannot use.
    func release(_ replica: RoomReplica, holder: String) {
        cluster.commands.eval(ClusterScripts.release, keys: [Array(ClusterKeys.lease(replica.id).utf8)], args: [Array(holder.utf8)], reply: nil)
    }

    /// Gives up an owned room on purpose (nobody in it, deleted, replaced):
    /// the lease released, the requests' channel left, the authority dropped.
    func giveUp(_ replica: RoomReplica) {
        guard replica.owned else { return }
        release(replica, holder: replica.holder)
        cluster.subscriber.unsubscribe(ClusterKeys.inbox(replica.id))
        replica.dropAuthority()
    }

    /// This node lost the room's lease (a write refused by the fence, Redis
    /// gone, the room replaced): the authority is dropped unpublished, and
    /// the view follows whoever owns the room next.
    func stepDown(_ replica: RoomReplica, epoch: Int, reason: String) {
        guard replica.owned, replica.epoch == epoch else { return }
        log.warn("room \(replica.id): no longer its owner (epoch \(epoch)): \(reason)")
        clusterMetrics.ownershipLost += 1
        cluster.subscriber.unsubscribe(ClusterKeys.inbox(replica.id))
        // What this turn owed was never sent to Redis: nothing of it happened.
        if let host = rooms[replica.id] {
            answerLocally(acks: replica.acks, rejects: replica.rejects, code: .unavailable,
                          reason: "the room's owner lost its lease before this message was stored", host: host)
        }
        // Turns still in flight settle when Redis answers or the connection drops; an
        // answer their publications carried may be missed from now on.
        if !replica.inFlight.isEmpty { replica.doubt += 1 }
        replica.dropAuthority()
        replica.lastHeard = .zero
        // Its view followed this node: it relays nothing until it has the next owner's snapshot
        // (its own last publications may still come in, and are absorbed).
        replica.awaitingOwner = true
    }

    /// Applies a request to the authority and keeps what the turn owes.
    func ownerHandle(_ request: RelayRequest, _ replica: RoomReplica, host: RoomHost, at now: Moment) {
        guard ownsSurely(replica, at: now) else { return }
        var effects: [Effect] = []
        switch request {
        case let .register(_, client, name, role, ack):
            guard let (admission, registered) = replica.authority?.register(client, name: name, role: role, ack: ack, at: now) else { return }
            replica.admitted.append(admission)
            effects = registered
        case let .leave(client):
            effects = replica.authority?.leave(client, at: now) ?? []
        case let .message(client, bytes):
            effects = ownerApply(bytes, from: client, replica, host: host, at: now)
        case let .acknowledge(client, seq):
            effects = replica.authority?.acknowledge(client, seq: seq, at: now) ?? []
        case .wantSnapshot:
            replica.snapshotWanted = true
        }
        collect(effects, replica, host: host)
        cluster.markDirty(replica)
    }

    /// A member's message, decoded and applied by the authority as a single
    /// node would. A client the owner does not know (not registered yet after
    /// an owner change) is refused with `unavailable`: nothing is applied
    /// from anyone whose role the owner has not heard.
    private func ownerApply(_ bytes: [UInt8], from client: ClientID, _ replica: RoomReplica, host: RoomHost, at now: Moment) -> [Effect] {
        let decoded = MessageDecoder.decode(bytes)
        if client == Cluster.apiClient {
            // A write over HTTP, checked (token, role) by the node it came to: applied as a
            // single node applies the API's writes, and acknowledged so that node can answer.
            let message: ClientMessage
            switch decoded {
            case let .message(decoded):
                message = decoded
            case let .preset(seq, .recall(name)):
                guard let preset = presetBook(replica.id)?.preset(named: name) else {
                    let refusal: PresetRefusal = presetBook(replica.id) == nil ? .unreadable : .unknown(name)
                    replica.rejects.append(Reject(to: client, seq: seq, code: refusal.code, message: refusal.message))
                    return []
                }
                message = recallMessage(preset, seq: seq)
            case let .restore(seq, revision):
                let effects = restoreOnAuthority(client, replica, host: host, seq: seq, revision: revision, at: now)
                if !effects.contains(where: { if case .reject = $0 { true } else { false } }) {
                    replica.acks.append(MemberAck(client: client, seq: seq))
                }
                return effects
            default:
                return []
            }
            let effects = replica.authority?.apply(message, from: client, at: now) ?? []
            if !effects.contains(where: { if case .reject = $0 { true } else { false } }) {
                replica.acks.append(MemberAck(client: client, seq: message.seq))
            }
            return effects
        }
        guard replica.authority?.room.contains(client) ?? false else {
            guard let seq = decoded.seq else { return [] }
            replica.rejects.append(Reject(to: client, seq: seq, code: .unavailable,
                                          message: "the room changed owner; nothing changed, try again"))
            return []
        }
        switch decoded {
        case let .message(message):
            return replica.authority?.apply(message, from: client, at: now) ?? []
        case let .refused(seq, code, text):
            return replica.authority?.refuse(client, seq: seq, code: code, message: text) ?? []
        case let .auth(seq, _):
            return replica.authority?.acknowledge(client, seq: seq, at: now) ?? []
        case let .preset(seq, .recall(name)):
            if let preset = presetBook(replica.id)?.preset(named: name) {
                let effects = replica.authority?.apply(recallMessage(preset, seq: seq), from: client, at: now) ?? []
                if effects.rejects.isEmpty { log.info("preset '\(name)' recalled in room \(replica.id) by \(client)") }
                return effects
            }
            let effects = replica.authority?.acknowledge(client, seq: seq, at: now) ?? []
            guard effects.rejects.isEmpty else { return effects }
            let role = replica.authority?.room.role(of: client) ?? .viewer
            guard role.mayWrite else {
                return effects + (replica.authority?.refuse(client, seq: seq, code: .forbidden, message: "a \(role.rawValue) may not recall presets") ?? [])
            }
            let refusal: PresetRefusal = presetBook(replica.id) == nil ? .unreadable : .unknown(name)
            return effects + (replica.authority?.refuse(client, seq: seq, code: refusal.code, message: refusal.message) ?? [])
        case let .preset(seq, _):
            // Saves, renames and deletes are done by the member's node; only their order and rate are the owner's.
            return replica.authority?.acknowledge(client, seq: seq, at: now) ?? []
        case let .restore(seq, revision):
            return restoreOnAuthority(client, replica, host: host, seq: seq, revision: revision, at: now)
        }
    }

    /// A restore, read from Redis' log and applied by the authority exactly
    /// as a single node applies it (`restore(_:in:seq:revision:at:)`, the
    /// rules both kinds share, lent the authority a step at a time).
    private func restoreOnAuthority(_ client: ClientID, _ replica: RoomReplica, host: RoomHost, seq: Int, revision: Int,
                                    at now: Moment) -> [Effect] {
        guard let authority = replica.authority else { return [] }
        return restore(client, id: authority.id, schema: authority.schema, seq: seq, revision: revision, at: now) {
            (step: (inout RoomAuthority) -> Void) in
            if replica.authority != nil { step(&replica.authority!) }
        }
    }

    /// Sorts the authority's effects into what the turn owes: commits to
    /// write, acks and rejects to publish. Gestures, joins and leaves travel
    /// in the delta through the change log.
    private func collect(_ effects: [Effect], _ replica: RoomReplica, host: RoomHost) {
        for effect in effects {
            switch effect {
            case let .commit(commit):
                let name = replica.authority?.room.peer(commit.by)?.name ?? commit.by.rawValue
                replica.commits.append(StoredCommit(room: replica.id, commit, name: name, time: WallClock.milliseconds()))
                log.debug("commit \(commit.control) rev=\(commit.revision) by=\(commit.by)")
            case let .ack(client, seq):
                replica.acks.append(MemberAck(client: client, seq: seq))
            case let .reject(reject):
                replica.rejects.append(reject)
            case let .gesture(entry):
                oscPreview(entry, in: host, at: MonotonicClock.now()) // the owner's alone: each preview goes out once
            case .joined, .left, .claim, .presence:
                break
            }
        }
    }

    // MARK: the turn's publication

    /// After each turn of the loop: every owned room that changed writes its
    /// commits and publishes its delta (and a snapshot when one was asked for).
    func clusterFlush() {
        guard !cluster.dirty.isEmpty else { return }
        let dirty = cluster.dirty
        cluster.dirty.removeAll(keepingCapacity: true)
        let now = MonotonicClock.now()
        for replica in dirty {
            replica.dirty = false
            guard ownsSurely(replica, at: now) else { continue } // never publish past the lease
            publishTurn(replica, at: now)
        }
    }

    private func publishTurn(_ replica: RoomReplica, at now: Moment) {
        guard replica.authority != nil, var delta = replica.authority?.publishDelta() else { return }
        delta.acks = replica.acks
        delta.rejects = replica.rejects
        delta.admitted = replica.admitted
        replica.acks.removeAll()
        replica.rejects.removeAll()
        replica.admitted.removeAll()
        let commits = replica.commits
        replica.commits.removeAll()
        let heartbeat = now.seconds(since: replica.lastPublished) >= Self.ownerHeartbeat
        // A quiet member's arrival or departure changes only the count: still news for the views.
        let counted = delta.present != replica.publishedPresent
        if !delta.isEmpty || !commits.isEmpty || heartbeat || counted || replica.snapshotWanted {
            replica.publishedPresent = delta.present
            replica.sequence += 1
            let owed = TurnOwed(epoch: replica.epoch, sequence: replica.sequence, acks: delta.acks, rejects: delta.rejects, commits: commits.count)
            write(replica, .delta(epoch: replica.epoch, sequence: replica.sequence, owner: cluster.node, delta),
                  commits: commits, revision: delta.revision, owed: owed, at: now)
            if !commits.isEmpty { snapshotTimeline(replica, commits: commits) } // ReplicatedRooms+Timeline.swift
        }
        if replica.snapshotWanted, let snapshot = replica.authority?.snapshotForViews {
            replica.snapshotWanted = false
            replica.sequence += 1
            write(replica, .snapshot(epoch: replica.epoch, sequence: replica.sequence, owner: cluster.node, snapshot),
                  commits: [], revision: snapshot.revision, owed: TurnOwed(epoch: replica.epoch, sequence: replica.sequence, acks: [], rejects: [], commits: 0), at: now)
        }
    }

    /// An idle owner publishes an empty delta this often, so that the views
    /// know it is alive (silence past most of the lease makes them look for a new owner).
    static let ownerHeartbeat = 0.5

    /// One fenced write: the commits, the room revision and the publication,
    /// all or nothing. Refused by the fence, or failed: this node steps down.
    private func write(_ replica: RoomReplica, _ publication: RelayPublication, commits: [StoredCommit], revision: Int,
                       owed: TurnOwed, at now: Moment) {
        let bytes = RelayCodec.encode(publication)
        // With --redis-replicas N the script only writes; the publication goes out once
        // N replicas hold the turn (`WAIT`), so nobody sees what a failover could take back.
        let replicated = cluster.settings.redisReplicas > 0
        var args: [[UInt8]] = [Array(replica.holder.utf8), Array(ClusterKeys.outbox(replica.id).utf8), replicated ? [] : bytes,
                               Array(String(revision).utf8), Array(String(commits.count).utf8)]
        args.reserveCapacity(args.count + 6 * commits.count)
        for commit in commits {
            args.append(Array(String(commit.revision).utf8))
            args.append(Array(commit.control.utf8))
            args.append(StateCodec.encode(commit.state))
            args.append(Array(commit.client.utf8))
            args.append(Array(commit.name.utf8))
            args.append(Array(String(commit.time).utf8))
        }
        replica.lastPublished = now
        clusterMetrics.publications[publication.kindName, default: 0] += 1
        clusterMetrics.publicationBytes += bytes.count
        let epoch = replica.epoch
        let id = replica.id
        replica.inFlight.append(owed)
        cluster.commands.eval(ClusterScripts.writeTurn,
                              keys: [Array(ClusterKeys.lease(id).utf8), Array(ClusterKeys.room(id).utf8), Array(ClusterKeys.log(id).utf8)],
                              args: args) { [weak self] reply in
            guard let self else { return }
            if let (written, holder) = ClusterScripts.answer(reply) {
                if written {
                    let published = {
                        self.settleTurn(owed, written: true, reason: "", replica) // ReplicatedRooms+Answers.swift
                        if !commits.isEmpty {
                            self.oscCommitted(commits, room: id)
                            self.recordSeries(commits, room: id) // what Redis took, and only that
                        }
                    }
                    guard replicated else { return published() }
                    self.waitForReplicas() { confirmed in
                        guard confirmed else {
                            self.stepDown(replica, epoch: epoch, reason: "the turn was not confirmed by \(self.cluster.settings.redisReplicas) replica(s) in time")
                            self.settleTurn(owed, written: nil, reason: "the room's replicas did not confirm this message in time", replica)
                            return
                        }
                        self.cluster.commands.send([Array("PUBLISH".utf8), Array(ClusterKeys.outbox(id).utf8), bytes], reply: nil)
                        published()
                    }
                    return
                }
                let reason = "the lease is held by '\(holder.isEmpty ? "nobody" : holder)': writes refused"
                self.stepDown(replica, epoch: epoch, reason: reason)
                self.settleTurn(owed, written: false, reason: "the room's owner lost its lease before this message was stored", replica)
            } else {
                self.log.error("room \(id): writing \(commits.count) commit(s) failed: \(reply)")
                self.stepDown(replica, epoch: epoch, reason: "a write failed: \(reply)")
                // Only a lost connection leaves the turn's fate open; an error from Redis itself,
                // or a command never sent ("redis unavailable: …"), wrote nothing.
                let lost = reply.errorMessage.map { $0.hasPrefix("connection") } ?? true
                self.settleTurn(owed, written: lost ? nil : false,
                                reason: "the room's owner lost its connection to Redis while storing this message", replica)
            }
        }
    }
}

extension RelayPublication {
    var kindName: String {
        switch self {
        case .delta: "delta"
        case .snapshot: "snapshot"
        }
    }
}

extension ReplicatedRooms {
    /// How long `WAIT` may take (below the command timeout, so that a missing replica is a refusal, not a dropped connection).
    static let replicaWaitMs = 500

    /// `WAIT N`: whether `--redis-replicas` replicas hold everything this connection wrote so far.
    func waitForReplicas(_ done: @escaping (Bool) -> Void) {
        let wanted = cluster.settings.redisReplicas
        let waitMs = min(Self.replicaWaitMs, Int(cluster.settings.redisTimeout * 500)) // below the command timeout
        cluster.commands.send([Array("WAIT".utf8), Array(String(wanted).utf8), Array(String(waitMs).utf8)]) { [weak self] reply in
            if case let .integer(count) = reply, count >= wanted {
                done(true)
                return
            }
            self?.clusterMetrics.replicaWaitsShort += 1
            done(false)
        }
    }
}
