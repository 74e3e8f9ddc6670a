import TandemCore
import TandemStorage
import TandemWire

/// Presets of local rooms (docs/presets.md): per room, a list of named sets
/// of control states, kept in the SQLite file (in memory with `--data :memory:`).
/// Saving, renaming and deleting are handled here, with the same ordering,
/// rate and role checks a room applies to its messages; a recall is an
/// `Operation.batch` that goes through `room.apply` like any message, so seq,
/// rate, role and `busy` apply, and its commits are written to storage
/// before anyone is told (`writeCommits`).
extension LocalRooms {
    /// The presets of room `id`: read from storage the first time, then kept
    /// in memory. `nil` when storage could not be read (logged): the room then
    /// lists none and refuses changes rather than overwrite what it could not
    /// read. In a cluster, `nil` until the read from Redis (started here) has
    /// arrived (`withPresetBook` waits for it).
    func loadPresetBook(_ id: String) -> PresetBook? {
        if let book = presetBooks[id] { return book }
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

    /// Where presets are kept on a single node: the SQLite file (none with `--data :memory:`).
    var presetStore: PresetStore? {
        storage
    }

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
        announcePresetsHere(host)
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
            announcePresetsHere(host)
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
        announcePresetsHere(host)
        return .success(())
    }

    /// A save, rename or delete (WebSocket or HTTP), done at once.
    func changePreset(_ request: PresetRequest, in host: RoomHost, client: String, by: String,
                      done: @escaping (Result<PresetOutcome, PresetRefusal>) -> Void) {
        switch request {
        case let .save(name):
            done(savePreset(name, in: host, client: client, by: by).map { .saved($0.0, created: $0.created) })
        case let .rename(name, to):
            done(renamePreset(name, to: to, in: host).map { .renamed($0) })
        case let .delete(name):
            done(deletePreset(name, in: host).map { .deleted })
        case let .recall(name):
            done(.failure(.unknown(name))) // a recall is a batch the room applies, never a change of the book
        }
    }

    /// `{"type":"preset",…}` from a member. A recall of a known preset is a
    /// batch the room applies; everything else is checked like a message the
    /// room does not interpret (`Room.acknowledge`: order and rate), then the
    /// role (viewers: `forbidden`), then the preset's own rules.
    func presetMessage(_ connection: Connection, in host: LocalRoomHost, seq: Int, _ request: PresetRequest, at now: Moment) -> [Effect] {
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

    /// The refusal of a preset change the SQLite file did not take: on a full
    /// or failing disk `unavailable` (a WebSocket reject, HTTP 503) naming the
    /// cause, and storage is marked unavailable (LocalRooms+Durability.swift).
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
}
