import Testing
@testable import TandemCore
import TandemRelay

/// The bytes are the documented format, and `peekPublication` reads the same header `decodePublication` does.
@Suite("Relay format")
struct RelayFormatTests {
    @Test("requests are the table's bytes")
    func requestBytes() throws {
        // 300 zig-zags to 600 = 0b100_1011000: 0xD8 0x04.
        let register = ByteBuilder(0xE3, 0x01)
        register.string("a").string("c1").string("Ann").raw(2).raw(0xD8, 0x04)
        #expect(RelayCodec.encode(.register(node: "a", client: "c1", name: "Ann", role: .admin, ack: 300)) == register.bytes)
        #expect(RelayCodec.encode(.leave(client: "c1")) == [0xE3, 0x02, 2, 0x63, 0x31])
        #expect(RelayCodec.encode(.message(client: "c", bytes: [0, 0xFF])) == [0xE3, 0x03, 1, 0x63, 2, 0, 0xFF])
        #expect(RelayCodec.encode(.acknowledge(client: "c1", seq: -2)) == [0xE3, 0x04, 2, 0x63, 0x31, 3])
        #expect(RelayCodec.encode(.wantSnapshot(node: "b")) == [0xE3, 0x05, 1, 0x62])
    }

    @Test("a delta is the table's bytes: header, then every field in order")
    func deltaBytes() throws {
        let delta = RoomDelta(
            revision: 5,
            changes: [ControlChange(controlIndex: 3, control: "gain", state: .slider(value: 0.25), revision: 5, by: "c1", claim: "c2", stamp: 0)],
            gestures: [GestureEntry(controlIndex: 1, control: "blanks", thumb: .upper, by: "c2", phase: .move,
                                    state: .range(RangeState(lower: 0, upper: 2)))],
            joined: [Peer(client: "c2", name: "Bo", color: "#2196F3", focus: "gain")], left: ["c9"], present: 2, presenceRefreshed: true,
            acks: [MemberAck(client: "c1", seq: 3)],
            rejects: [Reject(to: "c2", seq: 4, code: .busy, message: "held", holder: "c1")],
            admitted: [Admission(peer: Peer(client: "c2", name: "Bo", color: "#2196F3"), role: .editor, announced: true, ack: 0)],
            batch: BatchNote(revision: 5, by: "c1", cause: .preset(name: "Warm"), controls: ["size", "gain"]))
        let b = ByteBuilder(0xE3, 0x11)
        b.int(7).int(12).string("node-a")                     // header: epoch, sequence, owner
        b.int(5)                                              // revision
        b.uint(1).int(3).string("gain").string(#"{"value":0.25}"#).int(5).raw(1).string("c1").raw(1).string("c2") // by, claim
        b.uint(1).int(1).string("blanks").raw(3).string("c2").raw(1).string(#"{"lower":0,"upper":2}"#)
        b.uint(1).string("c2").string("Bo").string("#2196F3").raw(1).string("gain") // joined, focused on gain
        b.uint(1).string("c9")                                // left
        b.int(2).raw(1)                                       // present, presenceRefreshed
        b.uint(1).string("c1").int(3)                         // acks
        b.uint(1).string("c2").int(4).raw(5).string("held").raw(1).string("c1")
        b.uint(1).string("c2").string("Bo").string("#2196F3").raw(0).raw(1).raw(1).int(0)
        b.raw(1).int(5).string("c1").raw(1).string("Warm").uint(2).string("size").string("gain") // batch note: a preset's recall
        let publication = RelayPublication.delta(epoch: 7, sequence: 12, owner: "node-a", delta)
        #expect(RelayCodec.encode(publication) == b.bytes)
        #expect(try RelayCodec.decodePublication(b.bytes, schema: .demo) == publication)
    }

    @Test("a snapshot is the table's bytes: one state, revision, author and claim per control in schema order")
    func snapshotBytes() throws {
        let schema = RoomSchema.demo
        let snapshot = RoomSnapshot(revision: 1,
                                    controls: schema.controls.map { CommittedControl(state: $0.initial, revision: 0, by: nil) },
                                    gestures: [], peers: [], present: 0)
        let b = ByteBuilder(0xE3, 0x12)
        b.int(1).int(1).string("n").int(1).uint(5)
        for state in [#"{"index":2,"value":60}"#, #"{"lower":0,"upper":1}"#, ##"{"red":0.2,"green":0.4,"blue":0.6,"hex":"#336699"}"##,
                      #"{"value":0.5}"#, "{\"value\":67,\"fraction\":\(67.0 / 170)}"] {
            b.string(state).int(0).raw(0).raw(0) // revision, no author, no claim
        }
        b.uint(0).uint(0).int(0)
        let publication = RelayPublication.snapshot(epoch: 1, sequence: 1, owner: "n", snapshot)
        #expect(RelayCodec.encode(publication) == b.bytes)
        #expect(try RelayCodec.decodePublication(b.bytes, schema: schema) == publication)
    }

    @Test("integers: zig-zag LEB128 from Int.min to Int.max in the fewest bytes")
    func integers() throws {
        for value in [0, 1, -1, 63, -64, 64, -65, 8191, 8192, Int.max, Int.min, Int.max - 1, Int.min + 1] {
            let b = ByteBuilder(0xE3, 0x04)
            b.string("c").int(value)
            #expect(RelayCodec.encode(.acknowledge(client: "c", seq: value)) == b.bytes, "\(value)")
            #expect(try RelayCodec.decodeRequest(b.bytes) == .acknowledge(client: "c", seq: value))
        }
        #expect(RelayCodec.encode(.acknowledge(client: "c", seq: Int.min)).count == 4 + 10)
    }

    @Test("peek reads the header decode reads, for every publication; a request is not a publication")
    func peekAgrees() throws {
        for schema in Fixtures.schemas {
            for publication in Fixtures.publications(in: schema) {
                let bytes = RelayCodec.encode(publication)
                let header = try RelayCodec.peekPublication(bytes)
                let decoded = try RelayCodec.decodePublication(bytes, schema: schema)
                #expect(header.kind == decoded.kind && header.epoch == decoded.epoch && header.sequence == decoded.sequence
                            && header.owner == decoded.owner)
                #expect(header.kind == (publication.kind == RelayCodec.deltaKind ? 0x11 : 0x12))
            }
        }
        for request in Fixtures.requests {
            #expect(throws: RelayDecodeError.self) { try RelayCodec.peekPublication(RelayCodec.encode(request)) }
        }
    }

    @Test("peek reads only the header: a body it cannot judge is decode's to refuse")
    func peekIsHeaderOnly() throws {
        let bytes = RelayCodec.encode(.delta(epoch: 2, sequence: 9, owner: "o", RoomDelta(revision: 1, present: 1)))
        let header = try RelayCodec.peekPublication(bytes + [0xFF, 0xFF])
        #expect(header.epoch == 2 && header.sequence == 9 && header.owner == "o")
        #expect(throws: RelayDecodeError.self) { try RelayCodec.decodePublication(bytes + [0xFF, 0xFF], schema: .demo) }
    }
}
