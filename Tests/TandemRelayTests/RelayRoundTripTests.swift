import Testing
@testable import TandemCore
import TandemRelay
import TandemTestSupport

/// Every message comes back from its encoding exactly as it went in.
@Suite("Relay messages round-trip")
struct RelayRoundTripTests {
    @Test("the fixtures' states are legal for their controls (else the round trips below prove nothing)")
    func fixturesAreLegal() {
        for schema in Fixtures.schemas {
            for control in schema.controls {
                for state in Fixtures.states(of: control) {
                    #expect(control.isValid(state), "\(schema.id).\(control.id): \(state)")
                }
            }
        }
        #expect(Set(Fixtures.kinds.controls.map(\.kind.typeName)) == ["slider", "snap", "range", "color", "gauge", "toggle", "xy", "button"])
    }

    @Test("every request case, with empty, non-ASCII and extreme values")
    func requests() throws {
        for request in Fixtures.requests {
            let bytes = RelayCodec.encode(request)
            #expect(try RelayCodec.decodeRequest(bytes) == request)
        }
    }

    @Test("deltas and snapshots with every control kind, every thumb and phase, rejects with and without holder")
    func publications() throws {
        for schema in Fixtures.schemas {
            for publication in Fixtures.publications(in: schema) {
                let bytes = RelayCodec.encode(publication)
                let decoded = try RelayCodec.decodePublication(bytes, schema: schema)
                #expect(decoded == publication, "\(schema.id): \(publication.kind) \(publication.epoch)/\(publication.sequence)")
                #expect(RelayCodec.encode(decoded) == bytes)
            }
        }
    }

    @Test("the full delta carries what it should: every kind's changes, gestures on every thumb, every reject code")
    func fullDeltaCoverage() throws {
        let delta = Fixtures.fullDelta(in: Fixtures.kinds)
        #expect(Set(delta.changes.map(\.control)) == Set(Fixtures.kinds.controls.map(\.id)))
        #expect(Set(delta.gestures.map(\.thumb)) == Set(Thumb.allCases))
        #expect(Set(delta.gestures.map(\.phase)) == Set(DragPhase.allCases))
        #expect(Set(delta.rejects.map(\.code)) == Set(RejectCode.allCases))
        #expect(delta.rejects.contains { $0.holder != nil } && delta.rejects.contains { $0.holder == nil })
        #expect(delta.changes.contains { $0.by != nil } && delta.changes.contains { $0.by == nil })
        #expect(Set(delta.admitted.map(\.role)) == Set(Role.allCases))
        let snapshot = Fixtures.fullSnapshot(in: Fixtures.kinds)
        #expect(!snapshot.gestures.isEmpty && snapshot.controls.count == Fixtures.kinds.controls.count)
    }

    @Test("a change's stamp is not carried: it comes back 0")
    func stampNotCarried() throws {
        var delta = RoomDelta(revision: 1, changes: Fixtures.changes(in: .demo), present: 1)
        delta.changes[0].stamp = 12345
        let decoded = try RelayCodec.decodePublication(RelayCodec.encode(.delta(epoch: 1, sequence: 1, owner: "a", delta)), schema: .demo)
        guard case let .delta(_, _, _, back) = decoded else { Issue.record("not a delta"); return }
        #expect(back.changes[0].stamp == 0)
        delta.changes[0].stamp = 0
        #expect(back == delta)
    }

    @Test("rooms driven by random messages: their commits and gesture entries, as deltas and snapshots, round-trip")
    func drivenRooms() throws {
        for schema in Fixtures.schemas {
            for seed in UInt64(1)...20 {
                var random = SplitMix64(seed: seed)
                var room = Room(schema: schema)
                let clients: [ClientID] = ["c1", "c2", "c3"]
                var seqs: [ClientID: Int] = [:]
                for client in clients { _ = room.join(client, name: client.rawValue, at: .zero) }
                var changes: [ControlChange] = []
                var gestures: [GestureEntry] = []
                var rejects: [Reject] = []
                for step in 0..<200 {
                    let client = clients[Int(random.next() % 3)]
                    seqs[client, default: 0] += 1
                    let control = schema.controls[Int(random.next() % UInt64(schema.controls.count))]
                    let effects = room.apply(ClientMessage(seq: seqs[client]!, randomOperation(on: control, &random)),
                                             from: client, at: .seconds(Double(step) / 50))
                    for effect in effects {
                        switch effect {
                        case let .commit(commit):
                            changes.append(ControlChange(controlIndex: commit.controlIndex, control: commit.control, state: commit.state,
                                                         revision: commit.revision, by: commit.by, stamp: 0))
                        case let .gesture(entry): gestures.append(entry)
                        case let .reject(reject): rejects.append(reject)
                        default: break
                        }
                    }
                }
                #expect(!changes.isEmpty && !gestures.isEmpty, "seed \(seed)")
                let delta = RoomDelta(revision: room.revision, changes: changes, gestures: gestures, present: 3, rejects: rejects)
                let snapshot = RoomSnapshot(revision: room.revision,
                                            controls: schema.controls.indices.map {
                                                CommittedControl(state: room.committed[$0], revision: room.revisions[$0], by: room.committedBy[$0])
                                            },
                                            gestures: gestures.suffix(5), peers: room.peers, present: room.present)
                for publication: RelayPublication in [.delta(epoch: 1, sequence: Int(seed), owner: "a", delta),
                                                      .snapshot(epoch: 1, sequence: Int(seed), owner: "a", snapshot)] {
                    #expect(try RelayCodec.decodePublication(RelayCodec.encode(publication), schema: schema) == publication,
                            "\(schema.id) seed \(seed)")
                }
            }
        }
    }

    private func randomOperation(on control: Control, _ random: inout SplitMix64) -> Operation {
        let thumb = control.thumbs.isEmpty ? nil : control.thumbs[Int(random.next() % UInt64(control.thumbs.count))].rawValue
        let fraction = Double(random.next() % 1001) / 1000
        switch random.next() % 6 {
        case 0: return .drag(control: control.id, thumb: thumb, phase: .begin, pointer: .at(fraction, y: control.kind.typeName == "xy" ? fraction : nil))
        case 1: return .drag(control: control.id, thumb: thumb, phase: .move, pointer: .dx(fraction - 0.5, dy: 0.5 - fraction))
        case 2: return .drag(control: control.id, thumb: thumb, phase: random.next() % 2 == 0 ? .end : .cancel, pointer: nil)
        case 3: return .step(control: control.id, thumb: thumb, by: Double(Int(random.next() % 5) - 2),
                             byY: control.kind.typeName == "xy" ? 1 : nil)
        case 4: return .set(control: control.id, thumb: thumb, value: .number(fraction * 100))
        default: return .set(control: control.id, thumb: nil, value: .flag(random.next() % 2 == 0))
        }
    }
}
