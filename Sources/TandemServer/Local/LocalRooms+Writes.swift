import TandemCore
import TandemStorage
import TandemWire

/// Writes that want an answer, in local rooms: applied as client `api` (an
/// HTTP `PUT`, a preset's recall, a restore) and written to the file before
/// the answer, because the answer promises a committed value.
extension LocalRooms {
    func write(_ write: RoomWrite, in host: RoomHost, exchange: HTTPExchange) -> HTTPAnswer {
        let host = local(host)
        switch write {
        case let .set(control, message, _):
            if let refused = commitAsAPI(message, in: host, exchange: exchange).refused { return refused }
            return putAnswer(host, control: control)
        case let .recall(preset):
            let name = preset.name
            let (effects, refused) = commitAsAPI(recallMessage(preset, seq: 1), in: host, exchange: exchange)
            if let refused { return refused }
            if let unstored = unstoredAnswer() { return unstored } // the disk did not take it (LocalRooms+Durability.swift)
            let changed = effects.compactMap { if case let .commit(c) = $0 { JSON.string(c.control) } else { nil } }
            connectionLine("preset", "preset '\(name)' recalled in room \(host.room.id) over HTTP: \(changed.count) control(s) at rev \(host.room.revision)")
            return .json(200, JSON.object([
                JSONMember("name", .string(name)),
                JSONMember("rev", .number(Double(host.room.revision))),
                JSONMember("changed", .array(changed)),
            ]).bytes)
        case let .restore(revision):
            guard let source = timelineSource else { return .json(501, problem("not_implemented", "there is no timeline")) }
            let batch: Batch
            switch read(host, revision, source) {
            case let .success(moment): batch = restoreBatch(moment, in: host.room.schema)
            case let .failure(refusal):
                if let code = refusal.code { metrics.rejects[code, default: 0] += 1 }
                return refusal.answer
            }
            let before = host.room.revision
            let (effects, refused) = commitAsAPI(ClientMessage(seq: 1, .batch(batch)), in: host, exchange: exchange)
            if let refused { return refused }
            if let unstored = unstoredAnswer() { return unstored } // the disk did not take it (LocalRooms+Durability.swift)
            let changed = effects.reduce(0) { n, effect in if case .commit = effect { n + 1 } else { n } }
            return .json(200, JSON.object([
                JSONMember("restored", .number(Double(revision))),
                JSONMember("rev", .number(Double(host.room.revision))),
                JSONMember("changed", .number(Double(host.room.revision == before ? 0 : changed))),
            ]).bytes)
        case let .reset(control):
            let (effects, refused) = commitAsAPI(ClientMessage(seq: 1, .reset(control: control)), in: host, exchange: exchange)
            if let refused { return refused }
            if let control { return putAnswer(host, control: control) }
            let changed = effects.compactMap { if case let .commit(c) = $0 { c.control } else { nil } }
            return resetAnswer(revision: host.room.revision, changed: changed)
        case let .release(control):
            if let refused = commitAsAPI(ClientMessage(seq: 1, .release(control: control)), in: host, exchange: exchange).refused { return refused }
            return putAnswer(host, control: control)
        }
    }

    /// Applies `message` as client `api` and writes its commits before
    /// returning. `refused`: the answer to a reject, or the 503 of a write
    /// the disk did not take.
    func commitAsAPI(_ message: ClientMessage, in host: LocalRoomHost, exchange: HTTPExchange) -> (effects: [Effect], refused: HTTPAnswer?) {
        let now = MonotonicClock.now()
        let effects = host.room.apply(message, from: ClientID("api"), at: now)
        let logged = unwritten.count
        dispatch(effects, in: host, arrival: now)
        if let name = exchange.writerName { // the history names the token, as it names a WebSocket member
            for i in logged..<unwritten.count where unwritten[i].client == "api" { unwritten[i].name = name }
        }
        writeCommits()
        if let unstored = unstoredAnswer() { return (effects, unstored) } // LocalRooms+Durability.swift: nothing was stored
        return (effects, effects.rejects.first.map(HTTPAnswer.reject))
    }

}
