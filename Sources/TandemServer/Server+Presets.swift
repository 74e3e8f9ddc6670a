import TandemCore
import TandemStorage
import TandemWire

/// Presets (docs/presets.md): per room, a list of named sets of control
/// states. Saving, renaming and deleting are handled here, at the edge, with
/// the same ordering, rate and role checks a room applies to its messages;
/// a recall is an `Operation.batch` that goes through `room.apply` like any
/// message, so seq, rate, role and `busy` apply, and its commits are written
/// to storage before anyone is told (`writeCommits`). Every member gets the
/// list after its welcome and after changes of it, at most four times a
/// second per room (`PresetFeed`). In a cluster, changes go through Redis
/// scripts and reach every node as deltas (`Server+ClusterPresets.swift`).
extension Server {
    // MARK: the book

    /// The presets of room `id`: read from storage the first time, then kept
    /// in memory. `nil` when storage could not be read (logged): the room then
    /// lists none and refuses changes rather than overwrite what it could not
    /// read. In a cluster, `nil` until the read from Redis (started here) has
    /// arrived (`withPresetBook` waits for it).
    func presetBook(_ id: String) -> PresetBook? {
        if let book = presetBooks[id] { return book }
        if let cluster {
            loadPresets(id, cluster: cluster)
            return nil
        }
        var book = PresetBook()
        if let presetStore {
            do {
                book = PresetBook(try presetStore.loadPresets(room: id))
            } catch {
                log.error("presets of room \(id): \(error)")
                return nil
            }
            tidyStoredPresets(&book, room: id, presetStore)
        }
        presetBooks[id] = book
        return book
    }

    /// Rows written before names were cleaned (NFC, no bidi controls): of
    /// several spellings of one name the newest preset is stored under the
    /// cleaned name, and the other rows deleted, so that a deleted preset
    /// cannot come back from an older spelling (docs/presets.md, "Names").
    private func tidyStoredPresets(_ book: inout PresetBook, room: String, _ store: PresetStore) {
        guard !book.strays.isEmpty || !book.rekeyed.isEmpty else { return }
        do {
            for (stored, preset) in book.rekeyed {
                try store.storePreset(preset, room: room)
                try store.deleteStoredPreset(stored, room: room)
            }
            for stray in book.strays { try store.deleteStoredPreset(stray, room: room) }
            log.info("presets of room \(room): \(book.rekeyed.count) stored again under their cleaned names (NFC, no bidi controls), \(book.strays.count) older spelling(s) or non-names deleted")
            book.tidied()
        } catch {
            log.error("presets of room \(room): the stored names could not be tidied (tried again at the next start): \(error)")
        }
    }

    /// The `presets` frame of room `id`, or `nil` when its presets cannot be read (yet).
    func presetsFrame(_ id: String) -> [UInt8]? {
        guard presetBook(id) != nil else { return nil }
        return presetBooks[id]?.frame()
    }

    /// Where presets are kept on a single node: the SQLite file (none with `--data :memory:`).
    var presetStore: PresetStore? {
        cluster == nil ? storage : nil
    }

    /// Tells every member the room's list changed. In a cluster the delta
    /// each node hears does it (`presetNoteHeard`), this node's included.
    func announcePresets(_ host: RoomHost) {
        if cluster == nil { announcePresetsHere(host) }
    }

    /// The room's list changed on this node: sent now when the last list went
    /// out at least `PresetFeed.interval` ago, else by `flushPresetLists` once
    /// it has (with every change made meanwhile).
    func announcePresetsHere(_ host: RoomHost) {
        if presetFeed.changed(host.room.id, at: MonotonicClock.now()) { sendPresetList(host) }
    }

    /// Every 250 ms (housekeeping): the lists that waited.
    func flushPresetLists(at now: Moment) {
        if let cluster { preloadPresets(cluster, at: now) }
        guard !presetFeed.dirty.isEmpty else { return }
        for id in presetFeed.due(at: now) {
            if let host = rooms[id] { sendPresetList(host) }
        }
    }

    /// Sends the room's list to every member, from each one's next writable
    /// callback; a list not yet sent is replaced by the newer one. The frame
    /// is encoded once and shared.
    func sendPresetList(_ host: RoomHost) {
        guard let frame = presetsFrame(host.room.id) else { return }
        let now = MonotonicClock.now()
        presetFeed.sent(host.room.id, at: now, bytes: frame.count)
        // In a cluster a member not yet welcomed gets the list with its welcome (`react(to:)`).
        for connection in host.members.values where connection.closing == nil && (cluster == nil || connection.welcomed) {
            connection.presets = frame
            arm(connection, at: now)
        }
    }

    // MARK: changes (WebSocket and HTTP)

    /// Saves the room's committed values under `name` (replacing a preset of
    /// that name): storage first, then the book and every member's list.
    /// Returns the preset and whether it is new.
    func savePreset(_ name: String, in host: RoomHost, client: String, by: String) -> Result<(Preset, created: Bool), PresetRefusal> {
        let id = host.room.id
        guard var book = presetBook(id) else { return .failure(.unreadable) }
        let preset = Preset(name: name, entries: Preset.entries(of: host.room), client: client, by: by, time: WallClock.milliseconds())
        if let refusal = book.refusalToSave(preset) { return .failure(refusal) }
        do {
            try presetStore?.storePreset(preset, room: id)
        } catch {
            return .failure(unstoredPreset(error))
        }
        let created = book.preset(named: name) == nil
        book.save(preset)
        presetBooks[id] = book
        connectionLine("preset", "preset '\(name)' \(created ? "saved" : "replaced") in room \(id) by \(client) (\(preset.entries.count) controls)")
        announcePresets(host)
        return .success((preset, created))
    }

    /// Renames preset `name` to `to` (refused when `to` is another preset's name).
    func renamePreset(_ name: String, to: String, in host: RoomHost) -> Result<Preset, PresetRefusal> {
        let id = host.room.id
        guard var book = presetBook(id) else { return .failure(.unreadable) }
        if let refusal = book.refusalToRename(name, to: to) { return .failure(refusal) }
        if name != to {
            do {
                try presetStore?.renameStoredPreset(name, to: to, room: id)
            } catch {
                return .failure(unstoredPreset(error))
            }
            book.rename(name, to: to)
            presetBooks[id] = book
            connectionLine("preset", "preset '\(name)' renamed '\(to)' in room \(id)")
            announcePresets(host)
        }
        return .success(book.preset(named: to)!)
    }

    /// Forgets preset `name`.
    func deletePreset(_ name: String, in host: RoomHost) -> Result<Void, PresetRefusal> {
        let id = host.room.id
        guard var book = presetBook(id) else { return .failure(.unreadable) }
        if let refusal = book.refusalToUse(name) { return .failure(refusal) }
        do {
            try presetStore?.deleteStoredPreset(name, room: id)
        } catch {
            return .failure(unstoredPreset(error))
        }
        book.delete(name)
        presetBooks[id] = book
        connectionLine("preset", "preset '\(name)' deleted in room \(id)")
        announcePresets(host)
        return .success(())
    }

    /// The message that recalls `preset`: one batch of its states.
    func recallMessage(_ preset: Preset, seq: Int) -> ClientMessage {
        ClientMessage(seq: seq, .batch(Batch(origin: "preset \(preset.name)", states: preset.states)))
    }

    // MARK: WebSocket

    /// `{"type":"preset",…}` from a member. A recall of a known preset is a
    /// batch the room applies; everything else is checked like a message the
    /// room does not interpret (`Room.acknowledge`: order and rate), then the
    /// role (viewers: `forbidden`), then the preset's own rules.
    func presetMessage(_ connection: Connection, in host: RoomHost, seq: Int, _ request: PresetRequest, at now: Moment) -> [Effect] {
        let client = connection.client
        if case let .recall(name) = request, let preset = presetBook(host.room.id)?.preset(named: name) {
            let effects = host.room.apply(recallMessage(preset, seq: seq), from: client, at: now)
            if effects.rejects.isEmpty {
                connectionLine("preset", "preset '\(name)' recalled in room \(host.room.id) by \(client): \(effects.commitCount) control(s) at rev \(host.room.revision)")
            }
            return effects
        }
        let effects = host.room.acknowledge(client, seq: seq, at: now)
        guard effects.rejects.isEmpty else { return effects }
        let role = host.room.role(of: client) ?? .viewer
        guard role.mayWrite else {
            return effects + host.room.refuse(client, seq: seq, code: .forbidden, message: "a \(role.rawValue) may not \(request.action) presets")
        }
        let refusal: PresetRefusal?
        switch request {
        case let .save(name):
            let by = host.room.peer(client)?.name ?? client.rawValue
            refusal = savePreset(name, in: host, client: client.rawValue, by: by).failure
        case let .rename(name, to):
            refusal = renamePreset(name, to: to, in: host).failure
        case let .delete(name):
            refusal = deletePreset(name, in: host).failure
        case let .recall(name):
            refusal = presetBook(host.room.id) == nil ? .unreadable : .unknown(name)
        }
        guard let refusal else { return effects }
        return effects + host.room.refuse(client, seq: seq, code: refusal.code, message: refusal.message)
    }

    // MARK: HTTP

    /// `/api/rooms/{room}/presets…`, `rest` being the path after `presets`:
    ///
    /// - `GET …/presets` → `{"presets":[…]}`
    /// - `GET …/presets/{name}` → the preset
    /// - `PUT …/presets/{name}` (empty body or a JSON object) → save the
    ///   committed values: 201 new, 200 replaced
    /// - `DELETE …/presets/{name}` → 204
    /// - `POST …/presets/{name}/recall` → 200 `{"name","rev","changed":[ids]}`
    ///   once written; 409 `busy` with `holder`
    /// - `POST …/presets/{name}/rename` with `{"to":"…"}` → 200 the preset
    /// - `GET …/presets/{name}/diff` → `{"name","changes":[{"control","preset","now"}]}`
    ///
    /// Roles were checked by `authorizeAPI` (writes need an editor).
    func presetsAPI(_ exchange: HTTPExchange, _ host: RoomHost, _ rest: [String], waited: Bool = false) -> HTTPAnswer {
        if cluster != nil, presetBooks[host.room.id] == nil, !waited {
            // In a cluster, the first use of a room's presets on this node waits for their read from Redis.
            var now: HTTPAnswer?
            var deferred = false
            withPresetBook(host.room.id) { [weak self] _ in
                guard let self else { return }
                let answer = self.presetsAPI(exchange, host, rest, waited: true)
                if !deferred { now = answer; return }
                if case .deferred = answer { return }
                self.completeDeferred(exchange, answer)
            }
            deferred = true
            return now ?? .deferred
        }
        guard !rest.isEmpty else {
            guard exchange.method == .get else { return presetMethodNotAllowed("GET") }
            guard let book = presetBook(host.room.id) else { return presetAnswer(.unreadable) }
            return .json(200, PresetMessages.list(book.sorted))
        }
        let name: String
        switch PresetName.clean(rest[0]) {
        case let .success(cleaned): name = cleaned
        case let .failure(why): return .json(400, problem("bad_value", why.message))
        }
        switch (rest.count, rest.count > 1 ? rest[1] : "") {
        case (1, _):
            switch exchange.method {
            case .get:
                guard let book = presetBook(host.room.id) else { return presetAnswer(.unreadable) }
                guard let preset = book.preset(named: name) else { return presetAnswer(.unknown(name)) }
                return .json(200, PresetMessages.preset(preset))
            case .put:
                guard exchange.body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
                        || (try? JSONParser.parse(exchange.body))?.objectValue != nil else {
                    return .json(400, problem("bad_message", "the body must be empty or a JSON object ({}): a preset holds the room's current values"))
                }
                let by = presetAuthor(exchange)
                if let cluster {
                    return inCluster(.save(name: name), host, by: by, exchange, cluster)
                }
                switch savePreset(name, in: host, client: "api", by: by) {
                case let .success((preset, created)): return .json(created ? 201 : 200, PresetMessages.preset(preset))
                case let .failure(refusal): return presetAnswer(refusal)
                }
            case .delete:
                if let cluster {
                    return inCluster(.delete(name: name), host, by: "api", exchange, cluster)
                }
                switch deletePreset(name, in: host) {
                case .success: return .body(status: 204, contentType: "application/json", bytes: [])
                case let .failure(refusal): return presetAnswer(refusal)
                }
            default:
                return presetMethodNotAllowed("GET, PUT, DELETE")
            }
        case (2, "recall"):
            guard exchange.method == .post else { return presetMethodNotAllowed("POST") }
            return recallOverHTTP(name, in: host, exchange: exchange)
        case (2, "rename"):
            guard exchange.method == .post else { return presetMethodNotAllowed("POST") }
            guard let json = try? JSONParser.parse(exchange.body), json.objectValue != nil else {
                return .json(400, problem("bad_message", "the body must be a JSON object: {\"to\": \"new name\"}"))
            }
            guard let value = json["to"] else { return .json(400, problem("bad_message", "rename needs to (the new name)")) }
            guard case let .string(text) = value else { return .json(400, problem("bad_value", "to must be a string, not \(value.typeName)")) }
            switch PresetName.clean(text, field: "to") {
            case let .failure(why): return .json(400, problem("bad_value", why.message))
            case let .success(to):
                if let cluster {
                    return inCluster(.rename(name: name, to: to), host, by: "api", exchange, cluster)
                }
                switch renamePreset(name, to: to, in: host) {
                case let .success(preset): return .json(200, PresetMessages.preset(preset))
                case let .failure(refusal): return presetAnswer(refusal)
                }
            }
        case (2, "diff"):
            guard exchange.method == .get else { return presetMethodNotAllowed("GET") }
            guard let book = presetBook(host.room.id) else { return presetAnswer(.unreadable) }
            guard let preset = book.preset(named: name) else { return presetAnswer(.unknown(name)) }
            return .json(200, PresetMessages.diff(name: name, changes: preset.changes(in: host.room)))
        default:
            return .json(404, problem("not_found", "no such API endpoint"))
        }
    }

    /// Who an HTTP save is shown as: the token's `name`, cleaned as display
    /// names are (`DisplayName.clean`), or "api"; never its `sub`, which may
    /// be an e-mail address that everyone in the room would see.
    func presetAuthor(_ exchange: HTTPExchange) -> String {
        guard let name = exchange.claims?.name, name.unicodeScalars.contains(where: { scalar in
            !scalar.properties.isWhitespace && ![.control, .format].contains(scalar.properties.generalCategory)
        }) else { return "api" }
        return DisplayName.clean(name)
    }

    /// A save, rename or delete over HTTP in a cluster: answered once Redis has.
    private func inCluster(_ request: PresetRequest, _ host: RoomHost, by: String, _ exchange: HTTPExchange, _ cluster: Cluster) -> HTTPAnswer {
        // A refusal by this node's own checks comes at once: answered now, not deferred.
        var now: HTTPAnswer?
        var deferred = false
        changePresetInCluster(request, in: host, client: "api", by: by, cluster: cluster) { [weak self] result in
            guard let self else { return }
            let answer: HTTPAnswer
            switch result {
            case let .success(.saved(preset, created)): answer = .json(created ? 201 : 200, PresetMessages.preset(preset))
            case let .success(.renamed(preset)): answer = .json(200, PresetMessages.preset(preset))
            case .success(.deleted): answer = .body(status: 204, contentType: "application/json", bytes: [])
            case let .failure(refusal): answer = self.presetAnswer(refusal)
            }
            if deferred { self.completeDeferred(exchange, answer) } else { now = answer }
        }
        deferred = true
        return now ?? .deferred
    }

    /// `POST …/presets/{name}/recall`: the batch, committed as client `api`
    /// and written before the answer, like a `PUT` of a control.
    private func recallOverHTTP(_ name: String, in host: RoomHost, exchange: HTTPExchange) -> HTTPAnswer {
        guard let book = presetBook(host.room.id) else { return presetAnswer(.unreadable) }
        guard let preset = book.preset(named: name) else { return presetAnswer(.unknown(name)) }
        metrics.messagesIn["preset", default: 0] += 1
        if let cluster {
            let message = JSON.object([JSONMember("type", .string("preset")), JSONMember("seq", .number(1)),
                                       JSONMember("action", .string("recall")), JSONMember("name", .string(name))])
            return clusterAPIWrite(message, in: host, kind: .recall(name), cluster: cluster, exchange: exchange)
        }
        let (effects, refused) = commitAsAPI(recallMessage(preset, seq: 1), in: host)
        if let refused { return refused }
        if let unstored = unstoredAnswer() { return unstored } // the disk did not take it (Server+Durability.swift)
        let changed = effects.compactMap { if case let .commit(c) = $0 { JSON.string(c.control) } else { nil } }
        connectionLine("preset", "preset '\(name)' recalled in room \(host.room.id) over HTTP: \(changed.count) control(s) at rev \(host.room.revision)")
        return .json(200, JSON.object([
            JSONMember("name", .string(name)),
            JSONMember("rev", .number(Double(host.room.revision))),
            JSONMember("changed", .array(changed)),
        ]).bytes)
    }

    /// 404 for an unknown preset, 409 for a name taken or the room full, 503
    /// when the disk is full or failing (`unstoredPreset`), 500 when storage
    /// failed otherwise, else 400.
    private func presetAnswer(_ refusal: PresetRefusal) -> HTTPAnswer {
        if refusal.storage && refusal.code == .unavailable { return .json(503, problem("unavailable", refusal.message)) }
        let status = refusal.storage ? 500 : refusal.code == .unknownPreset ? 404 : refusal.conflict ? 409 : 400
        return .json(status, problem(refusal.storage ? "storage" : refusal.code.rawValue, refusal.message))
    }

    /// The refusal of a preset change the SQLite file did not take: on a full
    /// or failing disk `unavailable` (a WebSocket reject, HTTP 503) naming the
    /// cause, and storage is marked unavailable (Server+Durability.swift).
    private func unstoredPreset(_ error: any Error) -> PresetRefusal {
        guard let error = error as? StorageError else {
            log.error("\(error)")
            return .unwritable
        }
        noteStorageError(error)
        switch error.failure {
        case .refused, .corrupt: return .unwritable
        default:
            storageWatch.rejected(1)
            return PresetRefusal(.unavailable, Self.unstoredMessage(error.cause), storage: true)
        }
    }

    private func presetMethodNotAllowed(_ allowed: String) -> HTTPAnswer {
        .body(status: 405, contentType: "application/json", bytes: problem("method_not_allowed", "use \(allowed)"), headers: [("Allow", allowed)])
    }
}

extension Array where Element == Effect {
    /// How many controls were committed.
    var commitCount: Int {
        reduce(0) { if case .commit = $1 { $0 + 1 } else { $0 } }
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case let .failure(error) = self { error } else { nil }
    }
}
