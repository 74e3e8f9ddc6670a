import TandemCore
import TandemStorage
import TandemWire

/// Members of local rooms: a connection joins the room's engine at once, its
/// messages are applied as they arrive, and the effects are routed to whom
/// they concern (`dispatch`).
extension LocalRooms {
    /// A connection joins `host`'s room: its welcome goes out from its first writable callback.
    func join(_ connection: Connection, to host: RoomHost, name: String, role: Role, since: String?, at now: Moment) {
        let host = local(host)
        let roomID = host.room.id
        let (welcome, effects) = host.room.join(connection.client, name: name, role: role, at: now)
        connection.host = host
        host.members[connection.client] = connection
        sendWelcome(welcome, to: connection, in: host, since: since,
                    log: "open", "open \(connection.client) room=\(roomID) name=\(welcome.peers.last?.name ?? "")", at: now)
        dispatch(effects, in: host, arrival: now)
    }

    /// A whole text message from a member, applied by its room.
    func receive(_ message: [UInt8], from connection: Connection, in host: RoomHost, at now: Moment) {
        let host = local(host)
        let effects: [Effect]
        var ackRidesRound = false
        switch MessageDecoder.decode(message) {
        case let .message(decoded):
            metrics.messagesIn[decoded.operation.kindName, default: 0] += 1
            effects = host.room.apply(decoded, from: connection.client, at: now)
            if case .drag(_, _, .move, _) = decoded.operation { ackRidesRound = true }
        case let .refused(seq, code, text):
            metrics.messagesIn["invalid", default: 0] += 1
            effects = host.room.refuse(connection.client, seq: seq, code: code, message: text)
        case let .auth(seq, token):
            metrics.messagesIn["auth", default: 0] += 1
            effects = refreshToken(connection, in: host, seq: seq, token: token, at: now)
        case let .preset(seq, request):
            metrics.messagesIn["preset", default: 0] += 1
            effects = presetMessage(connection, in: host, seq: seq, request, at: now)
        case let .restore(seq, revision):
            metrics.messagesIn["restore", default: 0] += 1
            effects = restore(connection.client, id: host.room.id, schema: host.room.schema, seq: seq, revision: revision, at: now) {
                (step: (inout Room) -> Void) in step(&host.room)
            }
        }
        dispatch(effects, in: host, arrival: now, ackRidesRound: ackRidesRound)
    }

    /// A member's connection closed: it leaves the room.
    func leave(_ connection: Connection, from host: RoomHost, at now: Moment) {
        let host = local(host)
        host.members[connection.client] = nil
        dispatch(host.room.leave(connection.client, at: now), in: host, arrival: now)
    }

    /// `{"type":"auth","seq":N,"token":"…"}`: acknowledged like any message;
    /// a fresh token replaces the connection's when it verifies, names the
    /// same `sub`, covers the room and keeps the role. Anything else is
    /// reject `unauthorized` and the old token stands. With auth off it is only acknowledged.
    func refreshToken(_ connection: Connection, in host: RoomHost, seq: Int, token: String, at now: Moment) -> [Effect] {
        let host = local(host)
        let effects = host.room.acknowledge(connection.client, seq: seq, at: now)
        guard effects.rejects.isEmpty, let problem = delivery?.refreshProblem(connection, in: host, token: token, at: now) else { return effects }
        return effects + host.room.refuse(connection.client, seq: seq, code: .unauthorized, message: problem)
    }

    /// Acts on a room's effects: a commit is written to the file after the
    /// turn (the room's frames withheld until it is) and offered to the OSC
    /// bridge, a gesture entry too; then the outcome is routed like any
    /// room's (`route`: acks and rejects wake their recipient, the rest goes
    /// by the fan-out round).
    /// `ackRidesRound`: the effects are a drag move's, whose ack may wait
    /// for the round that carries the move (`RoomOutcome.ackRidesRound`).
    func dispatch(_ effects: [Effect], in host: LocalRoomHost, arrival: Moment, ackRidesRound: Bool = false) {
        var outcome = RoomOutcome()
        outcome.ackRidesRound = ackRidesRound
        for effect in effects {
            switch effect {
            case let .commit(commit):
                outcome.everyone = true
                outcome.offered += 1
                outcome.committed.append(commit.revision)
                if storage != nil {
                    let name = host.room.peer(commit.by)?.name ?? commit.by.rawValue
                    unwritten.append(StoredCommit(room: host.room.id, commit, name: name, time: WallClock.milliseconds()))
                    host.room.withholdFrames()
                    withheld.insert(host.room.id)
                } else {
                    series.record(commit.state, of: host.room.schema.controls[commit.controlIndex], in: host.room.id,
                                  at: WallClock.milliseconds())
                }
                log.debug("commit \(commit.control) rev=\(commit.revision) by=\(commit.by)")
                oscCommit(commit, in: host)
            case let .gesture(entry):
                outcome.everyone = true
                outcome.offered += 1
                oscPreview(entry, in: host, at: arrival)
            case .joined, .left, .claim, .presence:
                outcome.everyone = true
            case let .reject(reject):
                outcome.rejects.append(reject)
            case let .ack(client, _):
                outcome.acked.append(client)
            }
        }
        route(outcome, in: host, at: arrival)
    }
}
