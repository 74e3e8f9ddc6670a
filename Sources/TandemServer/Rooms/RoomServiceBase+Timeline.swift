import TandemCore
import TandemStorage
import TandemWire

/// The session timeline as every kind of rooms reads it (docs/timeline.md):
/// a room as it was at a logged revision, and the batch that restores it.
extension RoomServiceBase {
    /// The room at `revision`, after writing the commits still waiting (so
    /// the log holds every revision the room has made).
    func read(_ host: RoomHost, _ revision: Int, _ source: TimelineSource) -> Result<TimelineMoment, TimelineRefusal> {
        read(room: host.room.id, revision, source)
    }

    func read(room id: String, _ revision: Int, _ source: TimelineSource) -> Result<TimelineMoment, TimelineRefusal> {
        writeCommits()
        do {
            let found = try source.readMoment(room: id, at: revision)
            var rows = 0
            if case let .found(moment) = found { rows = moment.logRowsRead }
            metrics.timeline.note(.moment, rows: rows)
            switch found {
            case let .found(moment):
                return .success(moment)
            case let .unknown(last):
                return .failure(TimelineRefusal(status: 400, code: .badValue,
                                                message: "room '\(id)' has no revision \(revision): its timeline ends at \(last)"))
            case let .pruned(first):
                return .failure(TimelineRefusal(status: 410, code: .badValue,
                                                message: "revision \(revision) was pruned from the log: the timeline starts at \(first)"))
            }
        } catch {
            log.error("\(error)")
            return .failure(TimelineRefusal(status: 500, code: nil, message: "the timeline could not be read"))
        }
    }

    /// The batch that brings the room back to `moment`: every control's state
    /// then, fitted to the schema now (the room leaves out gauges and any
    /// control that takes no batches).
    func restoreBatch(_ moment: TimelineMoment, in schema: RoomSchema) -> Batch {
        var states: [String: ControlState] = [:]
        for control in moment.controls(in: schema) { states[control.id] = control.state }
        return Batch(.restore(revision: moment.revision), states: states)
    }

    /// `{"type":"restore","seq":n,"rev":R}` from a member: checked for order,
    /// rate (`Room.restoreCost` messages' worth) and role first
    /// (`Room.admitWrite`), so a refused restore costs no
    /// read; then the past state is read and the batch applied through the
    /// room like any message (`applyAdmitted`: holds, `busy`). When R cannot
    /// be read the admitted message is refused `bad_value`.
    ///
    /// `write` lends the room that writes (a local room, or the owner's
    /// authority) for one step at a time, never across the read: reading
    /// writes the turn's commits first, which touches the rooms (a local
    /// room's frames are released), so holding the room through it would be
    /// an overlapping access.
    func restore<Writer: RoomWriting>(_ client: ClientID, id: String, schema: RoomSchema, seq: Int, revision: Int, at now: Moment,
                                      write: ((inout Writer) -> Void) -> Void) -> [Effect] {
        var admitted = false, effects: [Effect] = []
        write { (admitted, effects) = $0.admitWrite(client, seq: seq, cost: Room.restoreCost, at: now) }
        guard admitted else { return effects }
        let message: String
        if let source = timelineSource {
            switch read(room: id, revision, source) {
            case let .success(moment):
                let batch = ClientMessage(seq: seq, .batch(restoreBatch(moment, in: schema)))
                write { effects += $0.applyAdmitted(batch, from: client, at: now) }
                return effects
            case let .failure(refusal):
                message = refusal.message
            }
        } else {
            message = "this server keeps state in memory (--data :memory:): there is no history to restore"
        }
        write { effects += $0.refuse(client, seq: seq, code: .badValue, message: message) }
        return effects
    }
}

/// Why a revision cannot be read: the HTTP status, and the reject code a WebSocket gets.
struct TimelineRefusal: Error {
    var status: Int
    /// `nil` for a storage failure (500).
    var code: RejectCode?
    var message: String

    var answer: HTTPAnswer {
        .json(status, problemBody(status == 500 ? "storage" : code?.rawValue ?? "bad_value", message))
    }
}
