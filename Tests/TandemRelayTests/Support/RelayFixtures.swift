@testable import TandemCore
import TandemRelay
import TandemTestSupport

/// Rooms, states and messages the relay tests encode: the demo room and a
/// room with every control kind, each control with several legal states.
enum Fixtures {
    /// Every kind, linear and log sliders, stepped and free colours, log and stepped xy axes.
    static let kinds = EveryKindRoom.relay

    static let schemas: [RoomSchema] = [.demo, kinds]

    /// Legal states of `control`, its initial one first; the values come from its own math where it has any.
    static func states(of control: Control) -> [ControlState] {
        var states = [control.initial]
        switch control.kind {
        case let .slider(math):
            states += [.slider(value: math.min), .slider(value: math.max), .slider(value: math.value(at: 0.37))]
        case let .snap(spec):
            states += spec.values.indices.map { .snap(index: $0, value: spec.values[$0]) }
        case let .range(math):
            states += [.range(RangeState(lower: math.operable.lowerBound, upper: math.operable.upperBound)),
                       .range(RangeState(lower: math.operable.upperBound - math.minGap, upper: math.operable.upperBound))]
        case .color:
            states += [.color(RGB(red: 0, green: 1, blue: 0.2)), .color(RGB(red: 1, green: 1, blue: 1))]
        case let .gauge(math):
            states += [0.0, 42.5, 170, 1e6].map { .gauge(value: $0, fraction: math.fraction(of: $0)) }
        case .toggle:
            states += [.toggle(on: true)]
        case let .xy(spec):
            states += [.xy(x: spec.x.math.min, y: spec.y.math.max), .xy(x: spec.x.math.value(at: 0.75), y: spec.y.math.value(at: 0.5))]
        case .button:
            states += [.button(presses: 1), .button(presses: ButtonMath.maxPresses)]
        }
        return states
    }

    /// One change per legal state of every control, with and without an author.
    static func changes(in schema: RoomSchema) -> [ControlChange] {
        var changes: [ControlChange] = []
        for (index, control) in schema.controls.enumerated() {
            for (n, state) in states(of: control).enumerated() {
                changes.append(ControlChange(controlIndex: index, control: control.id, state: state, revision: 10 * index + n,
                                             by: n % 2 == 0 ? ClientID("c\(n)") : nil, stamp: 0))
            }
        }
        return changes
    }

    /// Entries on every thumb of every control that has thumbs, in every phase, with each legal state.
    static func gestures(in schema: RoomSchema) -> [GestureEntry] {
        var entries: [GestureEntry] = []
        for (index, control) in schema.controls.enumerated() {
            let states = states(of: control)
            for (t, thumb) in control.thumbs.enumerated() {
                for (p, phase) in DragPhase.allCases.enumerated() {
                    entries.append(GestureEntry(controlIndex: index, control: control.id, thumb: thumb, by: ClientID("c\(t + p)"),
                                                phase: phase, state: states[(t + p) % states.count]))
                }
            }
        }
        return entries
    }

    static let peers = [
        Peer(client: "c1", name: "Ann", color: "#E91E63"),
        Peer(client: "c22", name: "Björk 🎛️ \"quoted\"", color: "#2196F3"),
        Peer(client: "", name: "", color: ""),
    ]

    /// A reject of every code, every other one naming a holder.
    static let rejects: [Reject] = RejectCode.allCases.enumerated().map { n, code in
        Reject(to: ClientID("c\(n)"), seq: n * 7, code: code, message: "why \(code.rawValue)", holder: n % 2 == 0 ? "c99" : nil)
    }

    static func fullDelta(in schema: RoomSchema) -> RoomDelta {
        RoomDelta(revision: 4711, changes: changes(in: schema), gestures: gestures(in: schema), joined: peers,
                  left: ["c7", "c8"], present: 130, presenceRefreshed: true,
                  acks: [MemberAck(client: "c1", seq: 1), MemberAck(client: "c2", seq: 9_007_199_254_740_991)],
                  rejects: rejects,
                  admitted: Role.allCases.enumerated().map { n, role in
                      Admission(peer: peers[n], role: role, announced: n != 1, ack: n * 3)
                  },
                  batch: BatchNote(revision: 4711, by: "c3", cause: .preset(name: "Wärm ☀️"), controls: schema.controls.map(\.id)))
    }

    /// A delta that carries only a batch note, of each cause.
    static func noteDeltas(in schema: RoomSchema) -> [RoomDelta] {
        let first = [schema.controls[0].id]
        return [BatchCause.restore(revision: 1402), .reset(control: first[0]), .reset(control: nil), .preset(name: "")].map {
            RoomDelta(revision: 7, present: 2, batch: BatchNote(revision: 7, by: "c1", cause: $0, controls: first))
        }
    }

    static func fullSnapshot(in schema: RoomSchema) -> RoomSnapshot {
        RoomSnapshot(revision: 99,
                     controls: schema.controls.enumerated().map { index, control in
                         let states = states(of: control)
                         return CommittedControl(state: states[index % states.count], revision: index, by: index % 2 == 0 ? "c3" : nil)
                     },
                     gestures: gestures(in: schema).filter { $0.phase == .begin || $0.phase == .move },
                     peers: peers, present: 3)
    }

    /// A publication of each kind for each room, plus empty ones.
    static func publications(in schema: RoomSchema) -> [RelayPublication] {
        [
            .delta(epoch: 3, sequence: 1, owner: "node-a", fullDelta(in: schema)),
            .delta(epoch: 0, sequence: 0, owner: "", RoomDelta(revision: 0, present: 0)),
            .delta(epoch: -5, sequence: Int.max, owner: "n", RoomDelta(revision: Int.min, present: -1)),
        ] + noteDeltas(in: schema).map { .delta(epoch: 2, sequence: 9, owner: "n", $0) } + [
            .snapshot(epoch: 3, sequence: 2, owner: "node-b", fullSnapshot(in: schema)),
            .snapshot(epoch: Int.max, sequence: 1, owner: "node-ü", RoomSnapshot(
                revision: 0, controls: schema.controls.map { CommittedControl(state: $0.initial, revision: 0, by: nil) },
                gestures: [], peers: [], present: 0)),
        ]
    }

    static let requests: [RelayRequest] = [
        .register(node: "node-a", client: "c1", name: "Ann", role: .viewer, ack: 0),
        .register(node: "", client: "", name: "Ünïcode 🎚️", role: .editor, ack: 41),
        .register(node: "n", client: "c9", name: "x", role: .admin, ack: Int.max),
        .register(node: "n", client: "c9", name: "x", role: .admin, ack: Int.min),
        .leave(client: "c1"),
        .leave(client: ""),
        .message(client: "c1", bytes: Array(#"{"type":"set","seq":3,"control":"gain","value":0.25}"#.utf8)),
        .message(client: "c2", bytes: []),
        .message(client: "c2", bytes: [0, 0xFF, 0xC3, 0x28, 0x80]),
        .acknowledge(client: "c1", seq: 17),
        .acknowledge(client: "c1", seq: -1),
        .wantSnapshot(node: "node-c"),
        .wantSnapshot(node: ""),
    ]
}
