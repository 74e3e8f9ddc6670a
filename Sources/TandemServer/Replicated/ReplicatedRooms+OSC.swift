import TandemCore
import TandemOSC
import TandemOSCLink
import TandemRelay

/// The OSC bridge in a cluster (docs/osc.md, "In a cluster"): an OSC writer
/// is a member registered with the room's owner by the node its datagrams
/// reach, and its writes travel to the owner as a WebSocket member's do. Only
/// the owner sends a room's commits, previews and takeover dump, so each goes out once.
extension ReplicatedRooms {
    /// A write from an OSC sender on this node, relayed to the room's owner.
    func oscWrite(_ operation: Operation, name: String, host: RoomHost, _ osc: OSCBridge,
                  from source: SocketAddress, at now: Moment) {
        let id = host.room.id
        let replica = cluster.replica(id)
        follow(replica, at: now)
        guard cluster.up, replica.synced else {
            seekOwner(replica, at: now)
            oscDrop("unavailable", "room '\(id)' has no owner this node can reach yet; nothing changed, try again", from: "\(source)")
            return
        }
        guard let bytes = OSCRequestJSON.encode(seq: (osc.writers[id]?[name]?.seq ?? 0) + 1, operation),
              oscHasRoom(for: name, in: id, osc, from: source) else { return }
        var writer = osc.writers[id]?[name]
            ?? OSCBridge.Writer(client: osc.newClient(named: name, prefix: cluster.node), name: name, lastWrite: now)
        if !writer.registered {
            writer.registered = true
            throttled("osc-writer", .info, "osc: \(source) writes in room \(id) as \(writer.client) '\(name)'")
            relay(.register(node: cluster.node, client: writer.client, name: name, role: .editor, ack: writer.seq),
                  replica, host: host, at: now)
        }
        writer.seq += 1
        writer.lastWrite = now
        osc.writers[id, default: [:]][name] = writer
        metrics.messagesIn[operation.kindName, default: 0] += 1
        relay(.message(client: writer.client, bytes: bytes), replica, host: host, at: now, seq: writer.seq)
    }

    /// A delta a view absorbed: the answers to this node's OSC writers are counted and their refusals logged.
    func oscReact(to delta: RoomDelta, room id: String) {
        guard let osc, let byName = osc.writers[id], !byName.isEmpty else { return }
        let mine = Set(byName.values.map(\.client))
        for reject in delta.rejects where mine.contains(reject.to) {
            oscDrop(reject.code.rawValue, reject.message, from: reject.to.rawValue)
        }
        let refused = Set(delta.rejects.filter { mine.contains($0.to) }.map { "\($0.to.rawValue) \($0.seq)" })
        for ack in delta.acks where mine.contains(ack.client) && !refused.contains("\(ack.client.rawValue) \(ack.seq)") {
            osc.metrics.applied += 1
        }
    }

    /// The room changed owner: this node's OSC writers register again with their next write.
    func oscOwnerChanged(room id: String) {
        guard let osc, let byName = osc.writers[id] else { return }
        for name in byName.keys { osc.writers[id]?[name]?.registered = false }
    }

    /// This node took a room: the targets get its dump once, from its new owner.
    func oscTookOwnership(_ authority: RoomAuthority) {
        guard let osc, osc.sends else { return }
        osc.send(OSCOut.dump(room: authority.id, schema: authority.schema, states: authority.room.committed, revision: authority.revision),
                 kind: .dump)
    }

    /// An OSC writer leaves: the owner is told, if it was registered.
    func oscLeave(_ writer: OSCBridge.Writer, host: RoomHost, at now: Moment) {
        guard writer.registered else { return }
        relay(.leave(client: writer.client), cluster.replica(host.room.id), host: host, at: now)
    }

    /// A writer stays until it is quiet (the owner keeps its place in the room).
    func oscWriterStays(_ writer: OSCBridge.Writer, host: RoomHost) -> Bool { true }
}
