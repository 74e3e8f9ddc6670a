import TandemCore
import TandemStorage
import TandemWire

/// The session timeline (docs/timeline.md): a room as it was at any logged
/// revision, and restoring such a moment as one new revision.
///
/// - `GET /api/rooms/{room}/timeline`: the range and up to 200 marks.
/// - `GET /api/rooms/{room}/timeline/{rev}`: every control's state right after `rev`.
/// - `POST /api/rooms/{room}/restore` `{"rev": R}` and the WebSocket's
///   `{"type":"restore","seq":n,"rev":R}`: the states at R, committed as one
///   `Operation.batch` (origin "restore R") through the room, so the
///   role, rate, order and hold (`busy`) checks of any message apply; the
///   order, rate and role checks run before the past state is read.
///
/// Reads follow `/history`'s rules (any role that may open the room); a
/// restore is a write. With `--data :memory:` there is no log: 501.
extension Server {
    /// The marks a timeline summary carries at most.
    static let timelineMarks = 200

    /// Routes `timeline`, `timeline/{rev}` and `restore` of a room; `nil` for another path.
    func timelineRoute(_ exchange: HTTPExchange, _ host: RoomHost, _ parts: [String]) -> HTTPAnswer? {
        switch (parts.count, parts[2]) {
        case (3, "timeline"):
            guard exchange.method == .get else { return .methodNotAllowed("GET") }
            return timelineSummary(host)
        case (4, "timeline"):
            guard exchange.method == .get else { return .methodNotAllowed("GET") }
            return timelineMoment(host, parts[3])
        case (3, "restore"):
            guard exchange.method == .post else { return .methodNotAllowed("POST") }
            return restore(host, body: exchange.body, exchange: exchange)
        default:
            return nil
        }
    }

    // MARK: reading

    /// Where the timeline is read: Redis in a cluster, else the SQLite file (none with `--data :memory:`).
    var timelineSource: TimelineSource? {
        service.timelineSource
    }

    private func timelineSummary(_ host: RoomHost) -> HTTPAnswer {
        guard let source = timelineSource else { return noHistory() }
        service.writeCommits() // the log shows every revision the room has made
        let summary: TimelineSummary
        do {
            summary = try source.readTimeline(room: host.room.id, marks: Self.timelineMarks)
            metrics.timeline.note(.summary, rows: summary.logRowsRead)
        } catch {
            log.error("\(error)")
            return .json(500, problem("storage", "the timeline could not be read"))
        }
        var out = JSONWriter()
        out.append(raw: "{\"room\":")
        out.append(string: host.room.id)
        out.append(raw: ",\"first\":")
        out.append(int: summary.first)
        out.append(raw: ",\"last\":")
        out.append(int: summary.last)
        out.append(raw: ",\"revisions\":")
        out.append(int: summary.revisions)
        out.append(raw: ",\"marks\":")
        out.append(array: summary.marks) { out, mark in
            out.append(raw: "{\"rev\":")
            out.append(int: mark.revision)
            out.append(raw: ",\"time\":")
            out.append(int: Int(mark.time))
            out.append(raw: "}")
        }
        out.append(raw: "}")
        return .json(200, out.bytes)
    }

    private func timelineMoment(_ host: RoomHost, _ text: String) -> HTTPAnswer {
        guard let source = timelineSource else { return noHistory() }
        guard let revision = MessageDecoder.revision(inPath: text) else {
            return .json(400, problem("bad_value", "the revision must be a whole number ≥ 0, not '\(text.prefix(40))'"))
        }
        let moment: TimelineMoment
        switch service.read(host, revision, source) {
        case let .success(found): moment = found
        case let .failure(refusal): return refusal.answer
        }
        var out = JSONWriter()
        out.append(raw: "{\"rev\":")
        out.append(int: moment.revision)
        out.append(raw: ",\"time\":")
        if let time = moment.time { out.append(int: Int(time)) } else { out.appendNull() }
        out.append(raw: ",\"by\":")
        if let name = moment.name { out.append(string: name) } else { out.appendNull() }
        out.append(raw: ",\"client\":")
        if let client = moment.client { out.append(string: client) } else { out.appendNull() }
        out.append(raw: ",\"controls\":{")
        for (k, control) in moment.controls(in: host.room.schema).enumerated() {
            if k > 0 { out.append(raw: ",") }
            out.append(key: control.id)
            out.append(state: control.state)
        }
        out.append(raw: "}}")
        return .json(200, out.bytes)
    }

    // MARK: restoring

    private func noHistory() -> HTTPAnswer {
        .json(501, problem("not_implemented", "this server keeps state in memory (--data :memory:): there is no timeline"))
    }

    /// `POST /api/rooms/{room}/restore` `{"rev": R}`: committed as the API's
    /// client; answers the revision restored, the room's revision after it,
    /// and how many controls changed (0: the room already was so; no revision).
    func restore(_ host: RoomHost, body: [UInt8], exchange: HTTPExchange) -> HTTPAnswer {
        guard service.timelineSource != nil else { return noHistory() }
        let revision: Int
        switch MessageDecoder.decodeRestoreBody(body, seq: 1) {
        case let .restore(_, rev): revision = rev
        case let .refused(_, code, text):
            metrics.rejects[code, default: 0] += 1
            return .json(400, problem(code.rawValue, text))
        case .message, .auth, .preset:
            return .json(400, problem("bad_message", "expected {\"rev\": R}"))
        }
        metrics.messagesIn["restore", default: 0] += 1
        return service.write(.restore(revision), in: host, exchange: exchange)
    }
}
