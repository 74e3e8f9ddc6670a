import TandemCore
import TandemWire

// The bodies of publications: a RoomDelta or a RoomSnapshot, field by field
// in the order of RelayCodec's table.

extension RelayWriter {
    mutating func delta(_ delta: RoomDelta) {
        signed(delta.revision)
        count(delta.changes.count)
        for change in delta.changes {
            signed(change.controlIndex)
            string(change.control)
            state(change.state)
            signed(change.revision)
            optionalClient(change.by)
            optionalClient(change.claim)
        }
        gestures(delta.gestures)
        peers(delta.joined)
        count(delta.left.count)
        for client in delta.left { self.client(client) }
        signed(delta.present)
        bool(delta.presenceRefreshed)
        count(delta.acks.count)
        for ack in delta.acks {
            client(ack.client)
            signed(ack.seq)
        }
        count(delta.rejects.count)
        for reject in delta.rejects {
            client(reject.to)
            signed(reject.seq)
            byte(reject.code.relayTag)
            string(reject.message)
            optionalClient(reject.holder)
        }
        count(delta.admitted.count)
        for admission in delta.admitted {
            peer(admission.peer)
            byte(admission.role.relayTag)
            bool(admission.announced)
            signed(admission.ack)
        }
        bool(delta.batch != nil)
        if let batch = delta.batch { self.batch(batch) }
    }

    /// A batch note: revision, author, a cause tag (1 preset + name, 2 restore
    /// + revision, 3 reset + optional control id), then the changed control ids.
    private mutating func batch(_ note: BatchNote) {
        signed(note.revision)
        client(note.by)
        switch note.cause {
        case let .preset(name):
            byte(1)
            string(name)
        case let .restore(revision):
            byte(2)
            signed(revision)
        case let .reset(control):
            byte(3)
            bool(control != nil)
            if let control { string(control) }
        }
        count(note.controls.count)
        for id in note.controls { string(id) }
    }

    mutating func snapshot(_ snapshot: RoomSnapshot) {
        signed(snapshot.revision)
        count(snapshot.controls.count)
        // One per schema control, in order: the position is the index (a snapshot names no ids).
        for control in snapshot.controls {
            state(control.state)
            signed(control.revision)
            optionalClient(control.by)
            optionalClient(control.claim)
        }
        gestures(snapshot.gestures)
        peers(snapshot.peers)
        signed(snapshot.present)
    }

    private mutating func gestures(_ entries: [GestureEntry]) {
        count(entries.count)
        for entry in entries {
            signed(entry.controlIndex)
            string(entry.control)
            byte(entry.thumb.relayTag)
            client(entry.by)
            byte(entry.phase.relayTag)
            state(entry.state)
        }
    }

    private mutating func peers(_ peers: [Peer]) {
        count(peers.count)
        for peer in peers { self.peer(peer) }
    }
}

/// What decoding a publication checks against: the room's schema and the wire's state check over it.
struct RoomReading {
    let schema: RoomSchema
    let validator: StateValidator

    init(schema: RoomSchema) {
        self.schema = schema
        self.validator = StateValidator(schema: schema)
    }
}

extension RelayReader {
    // The fewest bytes each entry can take, so a count can be checked against the input left.
    private static let minChange = 6, minGesture = 6, minPeer = 4, minAck = 2, minReject = 5, minAdmission = 6, minControl = 4

    mutating func delta(_ room: RoomReading) throws(RelayDecodeError) -> RoomDelta {
        let revision = try signed("the delta's revision")
        let changeCount = try count("the number of changes", limit: Self.maxEntries, minSize: Self.minChange)
        var changes: [ControlChange] = []
        changes.reserveCapacity(changeCount)
        for n in 0..<changeCount {
            let (index, control) = try controlReference("change \(n)", in: room)
            let state = try state("change \(n)'s state", of: control, validator: room.validator)
            changes.append(CoreValues.change(controlIndex: index, control: control.id, state: state,
                                             revision: try signed("change \(n)'s revision"),
                                             by: try optionalClient("change \(n)'s author"),
                                             claim: try optionalClient("change \(n)'s claim")))
        }
        let gestures = try gestures(room)
        let joined = try peers("joined")
        let leftCount = try count("the number who left", limit: Self.maxEntries, minSize: 1)
        var left: [ClientID] = []
        left.reserveCapacity(leftCount)
        for n in 0..<leftCount { left.append(try client("left \(n)")) }
        let present = try signed("the delta's present count")
        let presenceRefreshed = try bool("presenceRefreshed")
        let ackCount = try count("the number of acks", limit: Self.maxEntries, minSize: Self.minAck)
        var acks: [MemberAck] = []
        acks.reserveCapacity(ackCount)
        for n in 0..<ackCount {
            acks.append(MemberAck(client: try client("ack \(n)'s client"), seq: try signed("ack \(n)'s seq")))
        }
        let rejectCount = try count("the number of rejects", limit: Self.maxEntries, minSize: Self.minReject)
        var rejects: [Reject] = []
        rejects.reserveCapacity(rejectCount)
        for n in 0..<rejectCount {
            rejects.append(Reject(to: try client("reject \(n)'s client"), seq: try signed("reject \(n)'s seq"),
                                  code: try tag("reject \(n)'s code", RejectCode.init(relayTag:)),
                                  message: try string("reject \(n)'s message"), holder: try optionalClient("reject \(n)'s holder")))
        }
        let admissionCount = try count("the number of admissions", limit: Self.maxEntries, minSize: Self.minAdmission)
        var admitted: [Admission] = []
        admitted.reserveCapacity(admissionCount)
        for n in 0..<admissionCount {
            admitted.append(Admission(peer: try peer("admission \(n)"), role: try tag("admission \(n)'s role", Role.init(relayTag:)),
                                      announced: try bool("admission \(n)'s announced"), ack: try signed("admission \(n)'s ack")))
        }
        let batch = try bool("whether the delta has a batch note") ? try batch(room) : nil
        return RoomDelta(revision: revision, changes: changes, gestures: gestures, joined: joined, left: left, present: present,
                         presenceRefreshed: presenceRefreshed, acks: acks, rejects: rejects, admitted: admitted, batch: batch)
    }

    private mutating func batch(_ room: RoomReading) throws(RelayDecodeError) -> BatchNote {
        let revision = try signed("the batch note's revision")
        let by = try client("the batch note's author")
        let start = offset
        let cause: BatchCause
        switch try byte("the batch note's cause") {
        case 1: cause = .preset(name: try string("the batch note's preset"))
        case 2: cause = .restore(revision: try signed("the batch note's restored revision"))
        case 3: cause = .reset(control: try bool("whether the reset names a control") ? try string("the reset's control") : nil)
        case let tag: throw error("batch note cause \(tag) is not 1, 2 or 3", at: start)
        }
        let controlCount = try count("the batch note's controls", limit: room.schema.controls.count, minSize: 1)
        var controls: [String] = []
        for n in 0..<controlCount {
            let at = offset
            let id = try string("the batch note's control \(n)")
            guard room.schema.index(of: id) != nil else { throw error("the batch note's control \(id) is not in the room", at: at) }
            controls.append(id)
        }
        return BatchNote(revision: revision, by: by, cause: cause, controls: controls)
    }

    mutating func snapshot(_ room: RoomReading) throws(RelayDecodeError) -> RoomSnapshot {
        let revision = try signed("the snapshot's revision")
        let countAt = offset
        let controlCount = try count("the number of controls", limit: Self.maxEntries, minSize: Self.minControl)
        guard controlCount == room.schema.controls.count else {
            throw error("a snapshot of \(controlCount) controls for a room of \(room.schema.controls.count)", at: countAt)
        }
        var controls: [CommittedControl] = []
        controls.reserveCapacity(controlCount)
        for control in room.schema.controls {
            let state = try state("control \(control.id)'s state", of: control, validator: room.validator)
            controls.append(CommittedControl(state: state, revision: try signed("control \(control.id)'s revision"),
                                             by: try optionalClient("control \(control.id)'s author"),
                                             claim: try optionalClient("control \(control.id)'s claim")))
        }
        let gestures = try gestures(room)
        let peers = try peers("peers")
        let present = try signed("the snapshot's present count")
        return RoomSnapshot(revision: revision, controls: controls, gestures: gestures, peers: peers, present: present)
    }

    private mutating func gestures(_ room: RoomReading) throws(RelayDecodeError) -> [GestureEntry] {
        let gestureCount = try count("the number of gestures", limit: Self.maxEntries, minSize: Self.minGesture)
        var gestures: [GestureEntry] = []
        gestures.reserveCapacity(gestureCount)
        for n in 0..<gestureCount {
            let (index, control) = try controlReference("gesture \(n)", in: room)
            let thumbAt = offset
            let thumb = try tag("gesture \(n)'s thumb", Thumb.init(relayTag:))
            guard control.has(thumb) else {
                throw error("gesture \(n)'s thumb \(thumb.rawValue) is not one of control \(control.id)'s", at: thumbAt)
            }
            let by = try client("gesture \(n)'s holder")
            let phase = try tag("gesture \(n)'s phase", DragPhase.init(relayTag:))
            let state = try state("gesture \(n)'s state", of: control, validator: room.validator)
            gestures.append(CoreValues.gesture(controlIndex: index, control: control.id, thumb: thumb, by: by, phase: phase, state: state))
        }
        return gestures
    }

    private mutating func peers(_ what: String) throws(RelayDecodeError) -> [Peer] {
        let peerCount = try count("the number of \(what)", limit: Self.maxEntries, minSize: Self.minPeer)
        var peers: [Peer] = []
        peers.reserveCapacity(peerCount)
        for n in 0..<peerCount { peers.append(try peer("\(what) \(n)")) }
        return peers
    }

    /// A control index and id that name the same control of the room.
    private mutating func controlReference(_ what: @autoclosure () -> String, in room: RoomReading) throws(RelayDecodeError) -> (Int, Control) {
        let start = offset
        let index = try signed("\(what())'s control index")
        let id = try string("\(what())'s control id")
        guard room.schema.controls.indices.contains(index) else {
            throw error("\(what())'s control index \(index) is outside the room's \(room.schema.controls.count) controls", at: start)
        }
        let control = room.schema.controls[index]
        guard control.id == id else {
            throw error("\(what())'s control \(index) is \(control.id) in the room, not \(id)", at: start)
        }
        return (index, control)
    }
}
