import TandemCore
import TandemOSCLink

/// OSC writers in local rooms (docs/osc.md): each name a sender writes
/// under is a member of the room, joined on its first write.
extension LocalRooms {
    /// A write from an OSC sender, applied by the room from the writer of its name.
    func oscWrite(_ operation: Operation, name: String, host: RoomHost, _ osc: OSCBridge, from source: SocketAddress, at now: Moment) {
        let host = local(host)
        let id = host.room.id
        var writer: OSCBridge.Writer
        if let known = osc.writers[id]?[name], host.room.contains(known.client) {
            writer = known
        } else {
            guard oscHasRoom(for: name, in: id, osc, from: source) else { return }
            writer = OSCBridge.Writer(client: osc.newClient(named: name, prefix: ""), name: name, lastWrite: now)
            let (_, effects) = host.room.join(writer.client, name: name, role: .editor, takesFrames: false, at: now)
            throttled("osc-writer", .info, "osc: \(source) writes in room \(id) as \(writer.client) '\(name)'")
            dispatch(effects, in: host, arrival: now)
        }
        writer.seq += 1
        writer.lastWrite = now
        osc.writers[id, default: [:]][name] = writer
        metrics.messagesIn[operation.kindName, default: 0] += 1
        let effects = host.room.apply(ClientMessage(seq: writer.seq, operation), from: writer.client, at: now)
        if let reject = effects.rejects.first(where: { $0.to == writer.client }) {
            oscDrop(reject.code.rawValue, reject.message, from: source.description)
        } else {
            osc.metrics.applied += 1
        }
        dispatch(effects, in: host, arrival: now)
    }

    /// A writer leaves the room.
    func oscLeave(_ writer: OSCBridge.Writer, host: RoomHost, at now: Moment) {
        let host = local(host)
        dispatch(host.room.leave(writer.client, at: now), in: host, arrival: now)
    }

    /// Whether a writer is still in its room (a replaced room lost its writers with its members).
    func oscWriterStays(_ writer: OSCBridge.Writer, host: RoomHost) -> Bool {
        host.room.contains(writer.client)
    }
}
