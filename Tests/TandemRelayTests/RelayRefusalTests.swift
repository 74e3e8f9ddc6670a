import Testing
@testable import TandemCore
import TandemRelay
import TandemTestSupport

/// Whatever the bytes, decoding either yields a message or throws a
/// `RelayDecodeError` that says what and where: it never traps.
@Suite("Relay decoding refuses what is wrong")
struct RelayRefusalTests {
    /// The error `body` throws, or an issue when it throws none.
    private func refusal(_ body: () throws(RelayDecodeError) -> Void, _ comment: Comment? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) -> RelayDecodeError? {
        do {
            try body()
            Issue.record("decoded, should have been refused \(comment.map { "(\($0))" } ?? "")", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    private func delta(_ body: (ByteBuilder) -> Void) -> [UInt8] {
        let b = ByteBuilder(RelayCodec.magic, 0x11)
        b.int(1).int(1).string("n")
        body(b)
        return b.bytes
    }

    /// A delta of one change to control `index` of the demo room, its state given as JSON text.
    private func change(_ index: Int, _ id: String, json: String) -> [UInt8] {
        delta { b in
            b.int(1).uint(1).int(index).string(id).string(json).int(1).raw(0)
            b.uint(0).uint(0).uint(0).int(1).raw(0).uint(0).uint(0).uint(0).raw(0) // no batch note
        }
    }

    @Test("every truncation of every valid encoding is refused, at an offset inside the input")
    func truncations() {
        var encodings: [([UInt8], RoomSchema?)] = Fixtures.requests.map { (RelayCodec.encode($0), nil) }
        for schema in Fixtures.schemas {
            encodings += Fixtures.publications(in: schema).map { (RelayCodec.encode($0), schema) }
        }
        var checked = 0
        for (bytes, schema) in encodings {
            for length in 0..<bytes.count {
                let cut = Array(bytes[..<length])
                let error = refusal({ () throws(RelayDecodeError) in
                    if let schema { _ = try RelayCodec.decodePublication(cut, schema: schema) } else { _ = try RelayCodec.decodeRequest(cut) }
                }, "\(length) of \(bytes.count) bytes")
                if let error { #expect(error.offset >= 0 && error.offset <= length, "\(error)") }
                checked += 1
            }
        }
        #expect(checked > 5_000)
    }

    @Test("10,000 seeded byte flips, cuts and splices never trap; what still decodes re-encodes to itself")
    func randomDamage() {
        var random = SplitMix64(seed: 0x7E1A_7_14)
        var valid: [[UInt8]] = Fixtures.requests.map(RelayCodec.encode)
        for schema in Fixtures.schemas { valid += Fixtures.publications(in: schema).map(RelayCodec.encode) }
        var decodedCount = 0
        for round in 0..<10_000 {
            var bytes = valid[Int(random.next() % UInt64(valid.count))]
            switch random.next() % 4 {
            case 0, 1:
                // Flip 1 to 4 bytes.
                for _ in 0...(random.next() % 4) where !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: 1 + random.next() % 255)
                }
            case 2:
                // Overwrite a byte with a value that often matters: a length, a tag, a continuation bit.
                if !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x11, 0x12][Int(random.next() % 8)]
                }
            default:
                // Splice: insert random bytes or cut a stretch out.
                let at = Int(random.next() % UInt64(bytes.count + 1))
                if random.next() % 2 == 0 {
                    bytes.insert(contentsOf: (0..<(1 + random.next() % 8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
                } else {
                    bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(random.next() % 8)))
                }
            }
            if let request = try? RelayCodec.decodeRequest(bytes) {
                decodedCount += 1
                // Requests have one encoding each: minimal varints, exact tags.
                #expect(RelayCodec.encode(request) == bytes, "round \(round)")
            } else {
                do { _ = try RelayCodec.decodeRequest(bytes) } catch { #expect(error.offset >= 0 && error.offset <= bytes.count, "round \(round): \(error)") }
            }
            for schema in Fixtures.schemas {
                do {
                    let publication = try RelayCodec.decodePublication(bytes, schema: schema)
                    decodedCount += 1
                    let again = RelayCodec.encode(publication)
                    #expect((try? RelayCodec.decodePublication(again, schema: schema)) == publication, "round \(round)")
                    #expect((try? RelayCodec.peekPublication(bytes)) != nil)
                } catch {
                    #expect(error.offset >= 0 && error.offset <= bytes.count, "round \(round): \(error)")
                }
            }
        }
        // Some damage is harmless (a flipped letter in a name), so some inputs still decode.
        #expect(decodedCount > 0)
    }

    @Test("a state that is not legal for its control is refused, naming the control")
    func illegalStates() {
        let cases: [(Int, String, String)] = [
            (3, "gain", #"{"value":2}"#),                   // outside [0, 1]
            (3, "gain", #"{"value":0.505}"#),               // off the 0.01 grid
            (3, "gain", #"{"value":null}"#),                 // NaN or infinity as the writer writes it
            (3, "gain", #"{"index":1,"value":40}"#),         // another kind's state
            (3, "gain", #"{"value":0.5,"extra":1}"#),        // a key too many
            (3, "gain", #"{"value":0.5"#),                   // not JSON
            (0, "size", #"{"index":1,"value":60}"#),         // value is not values[1]
            (0, "size", #"{"index":5,"value":60}"#),         // index outside the values
            (0, "size", #"{"index":1.5,"value":40}"#),       // a fractional index
            (1, "blanks", #"{"lower":1,"upper":1}"#),        // below minGap
            (1, "blanks", #"{"lower":0,"upper":7}"#),        // outside operable
            (2, "color", ##"{"red":0.2,"green":0.4,"blue":0.6,"hex":"#000000"}"##), // hex not the channels
            (2, "color", ##"{"red":1.5,"green":0.4,"blue":0.6,"hex":"#FF6699"}"##), // a channel outside [0, 1]
            (4, "bpm", #"{"value":85,"fraction":0.9}"#),     // fraction not the gauge's
        ]
        for (index, id, json) in cases {
            let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(change(index, id, json: json), schema: .demo) }, "\(json)")
            #expect(error?.reason.contains(id) == true, "\(String(describing: error))")
        }
        // The same through the encoder: a state the codec writes for the wrong control.
        for (index, control) in Fixtures.kinds.controls.enumerated() {
            let wrong: ControlState = control.kind.typeName == "toggle" ? .button(presses: 1) : .toggle(on: true)
            let delta = RoomDelta(revision: 1, changes: [ControlChange(controlIndex: index, control: control.id, state: wrong,
                                                                       revision: 1, by: nil, stamp: 0)], present: 0)
            _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(RelayCodec.encode(.delta(epoch: 1, sequence: 1, owner: "n", delta)), schema: Fixtures.kinds) }, "\(control.id)")
        }
        // And in a snapshot: an illegal state in place of the demo room's last control.
        var snapshot = Fixtures.fullSnapshot(in: .demo)
        snapshot.controls[4].state = .gauge(value: 67, fraction: 0.5)
        let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(RelayCodec.encode(.snapshot(epoch: 1, sequence: 1, owner: "n", snapshot)), schema: .demo) })
        #expect(error?.reason.contains("bpm") == true)
    }

    @Test("controls and thumbs must be the room's: index in range, id matching, thumb of the control, a snapshot of every control")
    func schemaChecks() {
        let slider = #"{"value":0.5}"#
        for (index, id) in [(5, "gain"), (-1, "gain"), (2, "gain"), (3, "Gain"), (Int.max, "gain")] {
            _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(change(index, id, json: slider), schema: .demo) }, "\(index) \(id)")
        }
        func gesture(_ index: Int, _ id: String, thumb: UInt8) -> [UInt8] {
            delta { b in
                b.int(1).uint(0).uint(1).int(index).string(id).raw(thumb).string("c1").raw(0).string(slider)
                b.uint(0).uint(0).int(1).raw(0).uint(0).uint(0).uint(0).raw(0)
            }
        }
        #expect((try? RelayCodec.decodePublication(gesture(3, "gain", thumb: 0), schema: .demo)) != nil) // value: the slider's thumb
        let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(gesture(3, "gain", thumb: 2), schema: .demo) })
        #expect(error?.reason.contains("thumb lower") == true, "\(String(describing: error))")
        // A gauge has no thumbs at all.
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(gesture(4, "bpm", thumb: 0), schema: .demo) })

        var snapshot = Fixtures.fullSnapshot(in: .demo)
        snapshot.controls.removeLast()
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(RelayCodec.encode(.snapshot(epoch: 1, sequence: 1, owner: "n", snapshot)), schema: .demo) })
        // A snapshot of the demo room is not one of the room of every kind.
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(RelayCodec.encode(.snapshot(epoch: 1, sequence: 1, owner: "n", Fixtures.fullSnapshot(in: .demo))), schema: Fixtures.kinds) })
    }

    @Test("unknown magic, kind and tag bytes are refused")
    func unknownTags() {
        for kind: UInt8 in [0x00, 0x06, 0x10, 0x11, 0x12, 0xFF] {
            _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest([RelayCodec.magic, kind, 1, 0x63]) }, "request kind \(kind)")
        }
        for kind: UInt8 in [0x00, 0x01, 0x05, 0x10, 0x13, 0xFF] {
            _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.peekPublication([RelayCodec.magic, kind, 2, 2, 1, 0x6E]) }, "publication kind \(kind)")
        }
        // Versions 1 and 2's magic: a node of another version is refused, never misread.
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest([0xE1, 0x02, 1, 0x63]) })
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest([0xE2, 0x02, 1, 0x63]) })
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest([]) })
        // A role tag past admin.
        let register = ByteBuilder(RelayCodec.magic, 0x01)
        register.string("n").string("c").string("x").raw(3).int(0)
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(register.bytes) })
        // A thumb past press, a phase past cancel, a reject code past claimed, a bool of 2, a presence byte of 2.
        let bad: [[UInt8]] = [
            delta { $0.int(1).uint(0).uint(1).int(3).string("gain").raw(10).string("c").raw(0).string(#"{"value":0.5}"#).uint(0).uint(0).int(0).raw(0).uint(0).uint(0).uint(0).raw(0) },
            delta { $0.int(1).uint(0).uint(1).int(3).string("gain").raw(0).string("c").raw(4).string(#"{"value":0.5}"#).uint(0).uint(0).int(0).raw(0).uint(0).uint(0).uint(0).raw(0) },
            delta { $0.int(1).uint(0).uint(0).uint(0).uint(0).int(0).raw(0).uint(0).uint(1).string("c").int(1).raw(14).string("m").raw(0).uint(0).raw(0) },
            delta { $0.int(1).uint(0).uint(0).uint(0).uint(0).int(0).raw(2).uint(0).uint(0).uint(0).raw(0) },
            delta { $0.int(1).uint(1).int(3).string("gain").string(#"{"value":0.5}"#).int(1).raw(2).string("c").uint(0).uint(0).uint(0).int(0).raw(0).uint(0).uint(0).uint(0).raw(0) },
        ]
        for bytes in bad {
            let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(bytes, schema: .demo) })
            #expect(error?.description.contains("at byte") == true)
        }
        // The same bodies with good tags decode, so the refusals above are the tags'.
        let good = delta { $0.int(1).uint(0).uint(1).int(3).string("gain").raw(0).string("c").raw(3).string(#"{"value":0.5}"#).uint(0).uint(0).int(0).raw(1).uint(0).uint(1).string("c").int(1).raw(10).string("m").raw(0).uint(0).raw(0) }
        #expect((try? RelayCodec.decodePublication(good, schema: .demo)) != nil)
    }

    @Test("a batch note's cause must be 1, 2 or 3, and its controls the room's, at most as many as it has")
    func batchNoteChecks() {
        func note(_ body: (ByteBuilder) -> Void) -> [UInt8] {
            delta { b in
                b.int(1).uint(0).uint(0).uint(0).uint(0).int(0).raw(0).uint(0).uint(0).uint(0) // an empty delta, then
                b.raw(1).int(1).string("c1")                                                    // a note: revision, by
                body(b)
            }
        }
        let good = try? RelayCodec.decodePublication(note { $0.raw(3).raw(1).string("gain").uint(1).string("gain") }, schema: .demo)
        guard case let .delta(_, _, _, delta)? = good else { Issue.record("the good note did not decode"); return }
        #expect(delta.batch == BatchNote(revision: 1, by: "c1", cause: .reset(control: "gain"), controls: ["gain"]))
        let bad: [(String, [UInt8])] = [
            ("cause 4", note { $0.raw(4).uint(0) }),
            ("cause 0", note { $0.raw(0).uint(0) }),
            ("an unknown control", note { $0.raw(3).raw(0).uint(1).string("nope") }),
            ("more controls than the room has", note { $0.raw(2).int(5).uint(6).string("gain").string("gain").string("gain").string("gain").string("gain").string("gain") }),
            ("a cut-off preset name", note { $0.raw(1).uint(5).raw(0x57) }),
        ]
        for (what, bytes) in bad {
            let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(bytes, schema: .demo) }, Comment(rawValue: what))
            #expect(error?.reason.contains("batch note") == true, "\(what): \(String(describing: error))")
        }
    }

    @Test("varints: overlong, non-minimal and past 64 bits are refused")
    func varints() {
        // acknowledge "c" with a hand-made seq varint.
        func ack(_ varint: [UInt8]) -> [UInt8] { [RelayCodec.magic, 0x04, 1, 0x63] + varint }
        #expect((try? RelayCodec.decodeRequest(ack([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]))) == .acknowledge(client: "c", seq: Int.min))
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(ack([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02])) }, "65 bits")
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(ack([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])) }, "11 bytes")
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(ack([0x81, 0x00])) }, "non-minimal")
        _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(ack([0x80])) }, "cut")
    }

    @Test("lengths and counts past their caps or past the input are refused before anything is allocated")
    func caps() {
        // A string of 1 MiB + 1, all there: over the cap.
        var long = ByteBuilder(RelayCodec.magic, 0x05)
        long.uint(1 << 20 + 1)
        var bytes = long.bytes + [UInt8](repeating: 0x61, count: 1 << 20 + 1)
        var error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(bytes) })
        #expect(error?.reason.contains("over the limit") == true, "\(String(describing: error))")
        // Exactly 1 MiB is fine.
        long = ByteBuilder(RelayCodec.magic, 0x05)
        long.uint(1 << 20)
        bytes = long.bytes + [UInt8](repeating: 0x61, count: 1 << 20)
        #expect((try? RelayCodec.decodeRequest(bytes)) == .wantSnapshot(node: String(repeating: "a", count: 1 << 20)))
        // Lengths the input cannot hold: a few bytes claiming exabytes.
        for length: UInt64 in [5, 1 << 20, UInt64(Int.max), UInt64.max] {
            let b = ByteBuilder(RelayCodec.magic, 0x03)
            b.string("c").uint(length).raw(1, 2, 3)
            error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(b.bytes) }, "length \(length)")
            #expect(error?.offset == 4)
        }
        // Counts: a million and one, and more entries than bytes left.
        for count: UInt64 in [1_000_001, 1_000_000, 50, UInt64.max] {
            let bytes = delta { $0.int(1).uint(count).raw(0, 0, 0, 0, 0, 0) }
            _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(bytes, schema: .demo) }, "count \(count)")
        }
    }

    @Test("strings must be UTF-8; a message's bytes need not be")
    func utf8() {
        for invalid: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            var b = ByteBuilder(RelayCodec.magic, 0x02)
            b.uint(UInt64(invalid.count)).raw(contentsOf: invalid)
            let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(b.bytes) }, "\(invalid)")
            #expect(error?.reason.contains("UTF-8") == true)
            b = ByteBuilder(RelayCodec.magic, 0x03)
            b.string("c").uint(UInt64(invalid.count)).raw(contentsOf: invalid)
            #expect((try? RelayCodec.decodeRequest(b.bytes)) == .message(client: "c", bytes: invalid))
        }
    }

    @Test("nothing may follow the last field")
    func trailingBytes() {
        for request in Fixtures.requests {
            _ = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest(RelayCodec.encode(request) + [0]) })
        }
        for schema in Fixtures.schemas {
            for publication in Fixtures.publications(in: schema) {
                let bytes = RelayCodec.encode(publication) + [0]
                let error = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodePublication(bytes, schema: schema) })
                #expect(error?.offset == bytes.count - 1 && error?.reason.contains("trailing") == true)
            }
        }
    }

    @Test("an error says what and at which byte")
    func errorText() {
        let error = RelayDecodeError(offset: 12, reason: "unknown request kind 9")
        #expect(error.description == "relay: unknown request kind 9 at byte 12")
        let refused = refusal({ () throws(RelayDecodeError) in _ = try RelayCodec.decodeRequest([RelayCodec.magic, 0x09]) })
        #expect(refused == RelayDecodeError(offset: 1, reason: "unknown request kind 9"))
    }
}
