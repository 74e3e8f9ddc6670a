@testable import TandemCore

/// Drives a room the way a server would, numbering each client's messages.
struct RoomDriver {
    var room: Room
    var now = Moment.seconds(1000)
    private var seqs: [ClientID: Int] = [:]

    init(_ schema: RoomSchema = .demo, limits: RoomLimits = RoomLimits()) {
        room = Room(schema: schema, limits: limits)
    }

    @discardableResult
    mutating func join(_ client: ClientID, _ name: String = "", role: Role = .editor) -> Welcome {
        let (welcome, _) = room.join(client, name: name.isEmpty ? client.rawValue : name, role: role, at: now)
        return welcome
    }

    /// The seq of `client`'s latest message (0: none yet).
    func lastSeq(_ client: ClientID) -> Int { seqs[client] ?? 0 }

    /// Sends `operation` from `client` with its next seq.
    @discardableResult
    mutating func send(_ client: ClientID, _ operation: Operation) -> [Effect] {
        let seq = (seqs[client] ?? 0) + 1
        seqs[client] = seq
        return room.apply(ClientMessage(seq: seq, operation), from: client, at: now)
    }

    mutating func begin(_ client: ClientID, _ control: String, _ thumb: String?, at: Double? = nil) -> [Effect] {
        send(client, .drag(control: control, thumb: thumb, phase: .begin, pointer: at.map { Pointer.at($0) }))
    }

    mutating func move(_ client: ClientID, _ control: String, _ thumb: String?, dx: Double) -> [Effect] {
        send(client, .drag(control: control, thumb: thumb, phase: .move, pointer: .dx(dx)))
    }

    mutating func end(_ client: ClientID, _ control: String, _ thumb: String?, dx: Double? = nil) -> [Effect] {
        send(client, .drag(control: control, thumb: thumb, phase: .end, pointer: dx.map { Pointer.dx($0) }))
    }

    mutating func cancel(_ client: ClientID, _ control: String, _ thumb: String?) -> [Effect] {
        send(client, .drag(control: control, thumb: thumb, phase: .cancel, pointer: nil))
    }

    mutating func set(_ client: ClientID, _ control: String, thumb: String? = nil, _ value: SetValue) -> [Effect] {
        send(client, .set(control: control, thumb: thumb, value: value))
    }

    mutating func step(_ client: ClientID, _ control: String, thumb: String? = nil, by: Double) -> [Effect] {
        send(client, .step(control: control, thumb: thumb, by: by))
    }

    mutating func advance(seconds: Double) {
        now = now.adding(seconds: seconds)
    }

    func state(_ control: String) -> ControlState {
        room.committed[room.schema.index(of: control)!]
    }

    func shown(_ control: String) -> ControlState {
        room.displayed(room.schema.index(of: control)!)
    }

    /// Every frame waiting for `client`, taken.
    mutating func drain(_ client: ClientID) -> [Frame] {
        var frames: [Frame] = []
        while let frame = room.nextFrame(for: client) { frames.append(frame) }
        return frames
    }
}

extension Array where Element == Effect {
    var rejects: [Reject] {
        compactMap { if case let .reject(r) = $0 { r } else { nil } }
    }

    var commits: [Commit] {
        compactMap { if case let .commit(c) = $0 { c } else { nil } }
    }

    var gestures: [GestureEntry] {
        compactMap { if case let .gesture(g) = $0 { g } else { nil } }
    }
}

func rangeState(_ lower: Int, _ upper: Int) -> ControlState {
    .range(RangeState(lower: lower, upper: upper))
}
