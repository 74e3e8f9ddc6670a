import TandemCore
import TandemRedis
import TandemStorage
import TandemWire

/// Presets in cluster mode (docs/presets.md, "In a cluster"). Nothing here
/// blocks the loop on Redis: a room's presets are read with one `HGETALL` on
/// the node's non-blocking connection when first needed; a save, rename or
/// delete is one script (`ClusterScripts.savePreset`…) that checks the
/// per-room limit or the names, writes, and publishes the change itself on
/// `tandem:lifecycle`; every node, this one included, applies that delta to
/// its book in the order Redis made the changes, and tells its members
/// (coalesced, `PresetFeed`).
extension ReplicatedRooms {

    // MARK: reading

    /// Calls `body` with room `id`'s book once it is read (at once when it is), `nil` when it cannot be read.
    func readPresetBook(_ id: String, _ body: @escaping (PresetBook?) -> Void) {
        if let book = presetBooks[id] { return body(book) }
        presetFeed.loads[id, default: PresetFeed.Load()].waiting.append(body)
        loadPresets(id)
    }

    /// Reads the presets of every room this node owns or has members of, so
    /// that a recall the owner applies, or a member's list, does not wait
    /// for them; a read that failed is tried again after `PresetFeed.retry`.
    func preloadPresets(at now: Moment) {
        guard cluster.up else { return }
        for replica in cluster.replicas.values where presetBooks[replica.id] == nil && presetFeed.loads[replica.id] == nil {
            guard replica.owned || !(rooms[replica.id]?.members.isEmpty ?? true), presetFeed.mayRetry(replica.id, at: now) else { continue }
            loadPresets(replica.id)
        }
    }

    /// Starts reading room `id`'s presets from Redis, unless that is under way.
    func loadPresets(_ id: String) {
        if presetFeed.loads[id] == nil { presetFeed.loads[id] = PresetFeed.Load() }
        guard !(presetFeed.loads[id]?.sent ?? false) else { return }
        presetFeed.loads[id]?.sent = true
        cluster.commands.send(["HGETALL", ClusterKeys.presets(id)]) { [weak self] reply in
            self?.presetsLoaded(id, reply)
        }
    }

    private func presetsLoaded(_ id: String, _ reply: RedisReply) {
        let load = presetFeed.loads.removeValue(forKey: id) ?? PresetFeed.Load()
        var book: PresetBook?
        do {
            book = PresetBook(try ClusterPresets.decode(reply, room: id))
        } catch {
            throttled("presets-unreadable", .error, "presets of room \(id): \(error.description)")
            presetFeed.failed(id, at: MonotonicClock.now())
        }
        if var loaded = book {
            for note in load.heard { loaded.apply(note) }
            tidyStoredPresets(&loaded, room: id)
            presetBooks[id] = loaded
        }
        for body in load.waiting { body(book == nil ? nil : presetBooks[id]) }
        // Members welcomed while the list was being read get it now.
        if book != nil, let host = rooms[id] { sendPresetList(host) }
    }

    /// Rows written before names were cleaned, in Redis: the winner of each
    /// name's spellings moved under its cleaned name (unless a newer preset
    /// is there by then), every other spelling deleted (docs/presets.md, "Names").
    private func tidyStoredPresets(_ book: inout PresetBook, room: String) {
        guard !book.strays.isEmpty || !book.rekeyed.isEmpty else { return }
        let key = Array(ClusterKeys.presets(room).utf8)
        for (stored, preset) in book.rekeyed {
            cluster.commands.eval(ClusterScripts.rekeyPreset, keys: [key], args: [Array(stored.utf8), Array(preset.name.utf8)], reply: nil)
        }
        for stray in book.strays {
            cluster.commands.send([Array("HDEL".utf8), key, Array(stray.utf8)], reply: nil)
        }
        log.info("presets of room \(room): \(book.rekeyed.count) moved under their cleaned names (NFC, no bidi controls), \(book.strays.count) older spelling(s) or non-names deleted")
        book.tidied()
    }

    /// A delta from `tandem:lifecycle` (any node's change, this one's included).
    func presetNoteHeard(_ payload: [UInt8]) {
        guard let (id, note) = ClusterPresets.note(payload) else {
            throttled("presets-bad-delta", .warn, "presets: an unreadable change on the lifecycle channel")
            return
        }
        // A change this node made is answered once its book holds it (PresetEchoes.swift).
        defer { presetEchoes.heard(payload)?() }
        if presetBooks[id] != nil {
            presetBooks[id]?.apply(note)
        } else if presetFeed.loads[id] != nil {
            presetFeed.loads[id]?.heard.append(note)
            return
        } else {
            return // read afresh when first needed
        }
        if let host = rooms[id] { announcePresetsHere(host) }
    }

    // MARK: changing

    /// A save, rename or delete in a cluster: checked against this node's
    /// book (when it is read), then done by Redis in one script; `done` gets
    /// the outcome once Redis answered and, for a change made, once this
    /// node's book holds it (its delta heard: `PresetEchoes`), so that a read
    /// here after the answer sees the change.
    func changePresetInCluster(_ request: PresetRequest, in host: RoomHost, client: String, by: String,
                               done: @escaping (Result<PresetOutcome, PresetRefusal>) -> Void) {
        let id = host.room.id
        guard presetBooks[id] != nil else {
            // Read first (once per room and node), so that the checks below see the list.
            return withPresetBook(id) { [weak self] book in
                guard let self, book != nil else { return done(.failure(.unreadable)) }
                self.changePresetInCluster(request, in: host, client: client, by: by, done: done)
            }
        }
        let book = presetBooks[id]
        let key = Array(ClusterKeys.presets(id).utf8)
        let channel = Array(ClusterKeys.lifecycle.utf8)
        switch request {
        case let .save(name):
            let preset = Preset(name: name, entries: Preset.entries(of: host.room), client: client, by: by, time: WallClock.milliseconds())
            if let refusal = book?.refusalToSave(preset) { return done(.failure(refusal)) }
            let value = ClusterPresets.encode(preset)
            let note = ClusterPresets.saved(preset, value: value, room: id)
            let args = [Array(name.utf8), value, Array(String(PresetName.maxPerRoom).utf8), channel, note]
            let echo = presetEchoes.expect(note, at: MonotonicClock.now())
            cluster.commands.eval(ClusterScripts.savePreset, keys: [key], args: args) { [weak self] reply in
                guard let self else { return }
                switch reply.int {
                case 1?, 2?:
                    connectionLine("preset", "preset '\(name)' \(reply.int == 1 ? "saved" : "replaced") in room \(id) by \(client) (\(preset.entries.count) controls)")
                    answerWhenHeard(echo) { done(.success(.saved(preset, created: reply.int == 1))) }
                case 0?: presetEchoes.cancel(echo); done(.failure(.full))
                default: presetEchoes.cancel(echo); done(.failure(presetStorageFailed(reply, "save preset '\(name)' of room '\(id)'")))
                }
            }
        case let .rename(name, to):
            if let refusal = book?.refusalToRename(name, to: to) { return done(.failure(refusal)) }
            let note = ClusterPresets.moved(name, to: to, room: id)
            let args = [Array(name.utf8), Array(to.utf8), channel, note]
            let echo = presetEchoes.expect(note, prefix: true, at: MonotonicClock.now())
            cluster.commands.eval(ClusterScripts.renamePreset, keys: [key], args: args) { [weak self] reply in
                guard let self else { return }
                switch reply.int {
                case 1?:
                    connectionLine("preset", "preset '\(name)' renamed '\(to)' in room \(id)")
                    answerWhenHeard(echo) { [weak self] in
                        var renamed = self?.presetBooks[id]?.preset(named: to) ?? self?.presetBooks[id]?.preset(named: name)
                            ?? Preset(name: to, entries: [], client: "", by: "", time: 0)
                        renamed.name = to
                        done(.success(.renamed(renamed)))
                    }
                case 0?: presetEchoes.cancel(echo); done(.failure(.unknown(name)))
                case .some(-1): presetEchoes.cancel(echo); done(.failure(.taken(to)))
                default: presetEchoes.cancel(echo); done(.failure(presetStorageFailed(reply, "rename preset '\(name)' of room '\(id)'")))
                }
            }
        case let .delete(name):
            if let refusal = book?.refusalToUse(name) { return done(.failure(refusal)) }
            let note = ClusterPresets.deleted(name, room: id)
            let echo = presetEchoes.expect(note, at: MonotonicClock.now())
            cluster.commands.eval(ClusterScripts.deletePreset, keys: [key], args: [Array(name.utf8), channel, note]) { [weak self] reply in
                guard let self else { return }
                switch reply.int {
                case 1?:
                    connectionLine("preset", "preset '\(name)' deleted in room \(id)")
                    answerWhenHeard(echo) { done(.success(.deleted)) }
                case 0?: presetEchoes.cancel(echo); done(.failure(.unknown(name)))
                default: presetEchoes.cancel(echo); done(.failure(presetStorageFailed(reply, "delete preset '\(name)' of room '\(id)'")))
                }
            }
        case let .recall(name):
            done(.failure(.unknown(name))) // a recall is the owner's batch, never a change here
        }
    }

    /// Calls `answer` now if change `echo`'s delta was heard, else once it is (PresetEchoes.swift).
    private func answerWhenHeard(_ echo: Int, _ answer: @escaping () -> Void) {
        presetEchoes.replied(echo, at: MonotonicClock.now(), answer)?()
    }

    private func presetStorageFailed(_ reply: RedisReply, _ operation: String) -> PresetRefusal {
        throttled("presets-unwritable", .error, "redis: \(operation): \(reply)")
        return .unwritable
    }
}
