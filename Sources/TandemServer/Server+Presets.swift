import TandemCore
import TandemStorage
import TandemWire

/// The presets API over HTTP (docs/presets.md): routing, bodies and
/// answers. The book and its changes are the rooms' (`RoomService`: local
/// rooms change them at once, replicated rooms through Redis).
extension Server {
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
        if !waited {
            // The first use of a room's presets may wait for their read (from Redis, with replicated rooms).
            var now: HTTPAnswer?
            var deferred = false
            service.withPresetBook(host.room.id) { [weak self] _ in
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
            guard exchange.method == .get else { return .methodNotAllowed("GET") }
            guard let book = service.presetBook(host.room.id) else { return presetAnswer(.unreadable) }
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
                guard let book = service.presetBook(host.room.id) else { return presetAnswer(.unreadable) }
                guard let preset = book.preset(named: name) else { return presetAnswer(.unknown(name)) }
                return .json(200, PresetMessages.preset(preset))
            case .put:
                guard exchange.body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
                        || (try? JSONParser.parse(exchange.body))?.objectValue != nil else {
                    return .json(400, problem("bad_message", "the body must be empty or a JSON object ({}): a preset holds the room's current values"))
                }
                let by = presetAuthor(exchange)
                return changeOverHTTP(.save(name: name), host, by: by, exchange)
            case .delete:
                return changeOverHTTP(.delete(name: name), host, by: "api", exchange)
            default:
                return .methodNotAllowed("GET, PUT, DELETE")
            }
        case (2, "recall"):
            guard exchange.method == .post else { return .methodNotAllowed("POST") }
            return recallOverHTTP(name, in: host, exchange: exchange)
        case (2, "rename"):
            guard exchange.method == .post else { return .methodNotAllowed("POST") }
            guard let json = try? JSONParser.parse(exchange.body), json.objectValue != nil else {
                return .json(400, problem("bad_message", "the body must be a JSON object: {\"to\": \"new name\"}"))
            }
            guard let value = json["to"] else { return .json(400, problem("bad_message", "rename needs to (the new name)")) }
            guard case let .string(text) = value else { return .json(400, problem("bad_value", "to must be a string, not \(value.typeName)")) }
            switch PresetName.clean(text, field: "to") {
            case let .failure(why): return .json(400, problem("bad_value", why.message))
            case let .success(to):
                return changeOverHTTP(.rename(name: name, to: to), host, by: "api", exchange)
            }
        case (2, "diff"):
            guard exchange.method == .get else { return .methodNotAllowed("GET") }
            guard let book = service.presetBook(host.room.id) else { return presetAnswer(.unreadable) }
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

    /// A save, rename or delete over HTTP: answered once the rooms' store has (at once, or deferred).
    private func changeOverHTTP(_ request: PresetRequest, _ host: RoomHost, by: String, _ exchange: HTTPExchange) -> HTTPAnswer {
        // A refusal by this node's own checks comes at once: answered now, not deferred.
        var now: HTTPAnswer?
        var deferred = false
        service.changePreset(request, in: host, client: "api", by: by) { [weak self] result in
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
        guard let book = service.presetBook(host.room.id) else { return presetAnswer(.unreadable) }
        guard let preset = book.preset(named: name) else { return presetAnswer(.unknown(name)) }
        metrics.messagesIn["preset", default: 0] += 1
        return service.write(.recall(preset), in: host, exchange: exchange)
    }
    /// 404 for an unknown preset, 409 for a name taken or the room full, 503
    /// when the disk is full or failing (`unstoredPreset`), 500 when storage
    /// failed otherwise, else 400.
    private func presetAnswer(_ refusal: PresetRefusal) -> HTTPAnswer {
        if refusal.storage && refusal.code == .unavailable { return .json(503, problem("unavailable", refusal.message)) }
        let status = refusal.storage ? 500 : refusal.code == .unknownPreset ? 404 : refusal.conflict ? 409 : 400
        return .json(status, problem(refusal.storage ? "storage" : refusal.code.rawValue, refusal.message))
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
