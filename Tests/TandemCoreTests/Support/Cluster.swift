@testable import TandemCore
import TandemTestSupport

/// A room replicated over a cluster, in a test: one authority, a view per
/// node, and a *reference* standalone room that receives exactly the same
/// operations, to compare every member's frames against.
///
/// Operations accumulate into a turn; `publish()` ends it as the server
/// would: the authority publishes its delta, the server's part fills `acks`,
/// `rejects` and `admitted` from the turn's effects and joins, and every view
/// (but the `missing` ones) absorbs it.
struct Cluster {
    var reference: Room
    var authority: Room
    var views: [Room]
    /// The node serving each member present.
    var node: [ClientID: Int] = [:]
    /// The members present, in join order.
    var present: [ClientID] = []
    var now = Moment.seconds(1000)
    /// Nodes whose views miss the deltas (a lost subscription).
    var missing: Set<Int> = []
    /// The reference's welcome of each member, as it was at its join.
    private(set) var joinWelcomes: [ClientID: Welcome] = [:]
    private var seqs: [ClientID: Int] = [:]
    private var effects: [Effect] = []
    private var admitted: [Admission] = []
    private var joins = 0
    private var saved: [ControlState] = []

    /// The demo room with a live-mode slider added, so both commit modes are covered.
    static let schema: RoomSchema = {
        let controls = [
            ControlDefinition(id: "size", type: "snap", label: "Size", values: [20, 40, 60, 80, 100], layout: "ordinal",
                              state: StateDefinition(index: 2)),
            ControlDefinition(id: "blanks", type: "range", label: "Blanks", scale: [0, 9], operable: [0, 3], minGap: 1,
                              state: StateDefinition(lower: 0, upper: 1)),
            ControlDefinition(id: "color", type: "color", label: "Colour", step: 1.0 / 255, state: StateDefinition(hex: "#336699")),
            ControlDefinition(id: "gain", type: "slider", label: "Gain", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.5)),
            ControlDefinition(id: "pan", type: "slider", label: "Pan", commit: "live", min: 0, max: 1, step: 0.01,
                              state: StateDefinition(value: 0.5)),
            ControlDefinition(id: "bpm", type: "gauge", label: "BPM", min: 0, max: 170, state: StateDefinition(value: 67)),
        ]
        return try! RoomSchema(validating: RoomDefinition(id: "cluster", title: "Cluster", controls: controls))
    }()

    init(nodes: Int = 3, limits: RoomLimits, schema: RoomSchema = Cluster.schema) {
        reference = Room(schema: schema, limits: limits)
        authority = Room(schema: schema, limits: limits)
        authority.mode = .authority
        var view = Room(schema: schema, limits: limits)
        view.mode = .view
        views = Array(repeating: view, count: nodes)
    }

    // MARK: operations, on the reference and the authority alike

    /// `client` joins through `node`; returns the reference's welcome.
    @discardableResult
    mutating func join(_ client: ClientID, name: String, role: Role = .editor, on node: Int) -> Welcome {
        let (welcome, _) = reference.join(client, name: name, role: role, at: now)
        joinWelcomes[client] = welcome
        effects += authority.join(client, name: name, role: role, at: now).1
        admitted.append(authority.admission(of: client)!)
        self.node[client] = node
        present.append(client)
        return welcome
    }

    /// `client`'s connection closes.
    mutating func leave(_ client: ClientID) {
        _ = reference.leave(client, at: now)
        effects += authority.leave(client, at: now)
        if let n = node.removeValue(forKey: client) { views[n].dropLocal(client) }
        present.removeAll { $0 == client }
    }

    /// `client` sends `operation` with its next seq (or with `seq`).
    mutating func send(_ client: ClientID, _ operation: Operation, seq: Int? = nil) {
        let seq = seq ?? (seqs[client] ?? 0) + 1
        seqs[client] = Swift.max(seqs[client] ?? 0, seq)
        let message = ClientMessage(seq: seq, operation)
        _ = reference.apply(message, from: client, at: now)
        effects += authority.apply(message, from: client, at: now)
    }

    mutating func expire() {
        _ = reference.expire(at: now)
        effects += authority.expire(at: now)
    }

    mutating func refreshPresence() {
        reference.refreshPresence()
        authority.refreshPresence()
    }

    /// Ends the turn (see the type's comment) and returns the delta as the views got it.
    @discardableResult
    mutating func publish() -> RoomDelta {
        var delta = authority.publishDelta()
        for effect in effects {
            switch effect {
            case let .ack(client, seq): delta.acks.append(MemberAck(client: client, seq: seq))
            case let .reject(reject): delta.rejects.append(reject)
            default: break
            }
        }
        delta.admitted = admitted
        effects = []
        admitted = []
        let nodes = node
        for i in views.indices where !missing.contains(i) {
            views[i].absorb(delta, isLocal: { nodes[$0] == i })
        }
        return delta
    }

    /// Resynchronises view `i` to the authority's snapshot.
    mutating func resync(_ i: Int) {
        let nodes = node
        views[i].absorb(authority.snapshotForViews, isLocal: { nodes[$0] == i })
    }

    // MARK: a random turn

    /// One random turn of every kind of operation, from members on `nodes`
    /// (joins land on `joinNodes`, by default the same), then `publish()`
    /// unless `publishing` is false (the turn goes on). Returns who joined.
    @discardableResult
    mutating func randomTurn(_ random: inout SplitMix64, nodes: [Int], joinNodes: [Int]? = nil, maxMembers: Int = 10,
                             publishing: Bool = true) -> ClientID? {
        let joinNodes = joinNodes ?? nodes
        now = now.adding(seconds: Double(random.next() % 50) / 1000)
        let senders = present.filter { nodes.contains(node[$0]!) }
        var joined: ClientID?
        let roll = random.next() % 100
        if roll < 8 || senders.isEmpty {
            guard present.count < maxMembers else {
                if publishing { publish() }
                return nil
            }
            joins += 1
            let id = ClientID("m\(joins)")
            let names = ["Ann", "Bo", "Cy", " Dee ", "Ann"]
            let role: Role = random.next() % 8 == 0 ? .viewer : .editor
            join(id, name: names[Int(random.next() % 5)], role: role, on: joinNodes[Int(random.next() % UInt64(joinNodes.count))])
            joined = id
        } else {
            let id = senders[Int(random.next() % UInt64(senders.count))]
            switch roll {
            case 8..<14 where present.count > 2: leave(id)
            case 14..<50: send(id, randomDrag(&random))
            case 50..<60: send(id, randomSet(&random))
            case 60..<66:
                let (control, thumb) = randomThumb(&random)
                send(id, .step(control: control, thumb: thumb, by: Double(Int(random.next() % 5) - 2)))
            case 66..<72: send(id, random.next() % 2 == 0 ? .undo : .redo)
            case 72..<74: send(id, .set(control: "nope", thumb: nil, value: .number(1)))
            case 74..<76: send(id, .undo, seq: Swift.max(1, seqs[id] ?? 1)) // a seq that does not increase
            case 76..<79:
                for _ in 0..<8 { send(id, randomDrag(&random)) } // a burst: rate-limited
            case 79..<81:
                if saved.isEmpty || random.next() % 2 == 0 {
                    saved = reference.committed
                } else {
                    let states = Dictionary(uniqueKeysWithValues: zip(reference.schema.controls.map(\.id), saved))
                    send(id, .batch(Batch(.preset(name: "moment"), states: states))) // its note reaches every view too
                }
            case 81..<84:
                now = now.adding(seconds: 11) // every hold lapses
                expire()
            case 84..<87: refreshPresence()
            default: break
            }
        }
        if publishing { publish() }
        return joined
    }

    private func randomThumb(_ random: inout SplitMix64) -> (String, String?) {
        switch random.next() % 7 {
        case 0: ("size", nil)
        case 1: ("blanks", random.next() % 2 == 0 ? "lower" : "upper")
        case 2: ("color", ["red", "green", "blue"][Int(random.next() % 3)])
        case 3, 4: ("gain", nil)
        case 5: ("pan", nil)
        default: ("bpm", nil)
        }
    }

    private func randomDrag(_ random: inout SplitMix64) -> Operation {
        let (control, thumb) = randomThumb(&random)
        let phases: [DragPhase] = [.begin, .begin, .move, .move, .move, .end, .cancel]
        let phase = phases[Int(random.next() % 7)]
        let fraction = Double(random.next() % 101) / 100
        let pointer: Pointer? = switch random.next() % 4 {
        case 0: nil
        case 1: .at(fraction)
        default: .dx(fraction - 0.5)
        }
        return .drag(control: control, thumb: thumb, phase: phase, pointer: pointer)
    }

    private func randomSet(_ random: inout SplitMix64) -> Operation {
        let (control, thumb) = randomThumb(&random)
        let number = Double(random.next() % 10)
        switch control {
        case "color" where random.next() % 2 == 0:
            let hex = String(random.next() % 0x1000000, radix: 16)
            return .set(control: "color", thumb: nil, value: .text("#" + String(repeating: "0", count: 6 - hex.count) + hex))
        case "gain", "pan":
            return .set(control: control, thumb: nil, value: random.next() % 6 == 0 ? .text("loud") : .number(number / 10))
        case "size":
            return .set(control: control, thumb: nil, value: .number(number * 10))
        case "color":
            return .set(control: control, thumb: thumb, value: .number(number / 10))
        default:
            return .set(control: control, thumb: thumb, value: .number(number))
        }
    }
}

/// What a client knows of a room: its welcome with every frame since applied.
struct ClientModel: Equatable {
    var states: [String: ControlState]
    var live: [String: GestureEntry]
    var peers: [Peer]

    init(_ welcome: Welcome) {
        states = Dictionary(uniqueKeysWithValues: welcome.controls.map { ($0.control.id, $0.state) })
        live = Dictionary(uniqueKeysWithValues: welcome.gestures.map { (Self.key($0), $0) })
        peers = welcome.peers
    }

    /// What the room shows: the model a client of it would hold.
    init(of room: Room) {
        self.init(room.snapshot)
    }

    mutating func take(_ frame: Frame) {
        guard case let .update(update) = frame else { return }
        for change in update.changes { states[change.control] = change.state }
        for gesture in update.gestures.map(\.entry) {
            live[Self.key(gesture)] = gesture.phase == .begin || gesture.phase == .move ? gesture : nil
        }
        for client in update.left { peers.removeAll { $0.client == client } }
        for peer in update.joined {
            peers.removeAll { $0.client == peer.client }
            peers.append(peer)
        }
    }

    /// The model as `client` knows it: a member is never told of its own
    /// promotion from the quiet audience (a room leaves the recipient's own
    /// presence out of its frames), so its own entry is left out of the comparison.
    func seen(by client: ClientID) -> ClientModel {
        var model = self
        model.peers.removeAll { $0.client == client }
        return model
    }

    private static func key(_ entry: GestureEntry) -> String { "\(entry.control)/\(entry.thumb.rawValue)" }
}

extension Frame {
    /// The frame with its change-log stamps zeroed: a view's log and the
    /// reference's count differently, and stamps only name shared content.
    var unstamped: Frame {
        guard case var .update(update) = self else { return self }
        for i in update.changes.indices { update.changes[i].stamp = 0 }
        for i in update.gestures.indices { update.gestures[i].stamp = 0 }
        return .update(update)
    }
}
