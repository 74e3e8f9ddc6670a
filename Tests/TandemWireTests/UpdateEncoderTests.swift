import Testing
@testable import TandemCore
import TandemWire
import TandemTestSupport

@Suite("Update encoder")
struct UpdateEncoderTests {
    /// A demo room with two members whose frames are drained.
    func quietRoom() -> Room {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        _ = room.join("c2", name: "Bob", at: .zero)
        while room.nextFrame(for: "c1") != nil {}
        while room.nextFrame(for: "c2") != nil {}
        return room
    }

    func update(_ frame: Frame?) throws -> Update {
        guard case let .update(update)? = frame else { throw FrameError.notAnUpdate }
        return update
    }

    enum FrameError: Error { case notAnUpdate }

    @Test("a round's head, a recipient's ack and the round's tail are the bytes encode writes", arguments: [nil, 7] as [Int?])
    func headAckTail(present: Int?) throws {
        var room = quietRoom()
        _ = room.apply(ClientMessage(seq: 12, .set(control: "gain", thumb: nil, value: .number(0.3))), from: "c1", at: .zero)
        _ = room.apply(ClientMessage(seq: 13, .drag(control: "size", thumb: nil, phase: .begin, pointer: nil)), from: "c1", at: .zero)
        var update = try update(room.nextFrame(for: "c1"))
        update.present = present
        var encoder = UpdateEncoder()
        let whole = encoder.encode(update)
        let pieces = UpdateEncoder.head(revision: update.revision) + Array("\(update.ack)".utf8) + encoder.tail(update, present: present)
        #expect(text(pieces) == text(whole))
        #expect(text(whole).contains(#""ack":13,"changes":"#))
        #expect(text(whole).hasSuffix(present.map { #","present":\#($0)}"# } ?? "]}"))
    }

    @Test("two updates with the same stamped change share its bytes: one miss, then one hit")
    func encodeOnceSendMany() throws {
        var room = quietRoom()
        _ = room.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.3))), from: "c1", at: .zero)
        let forSender = try update(room.nextFrame(for: "c1"))
        let forOther = try update(room.nextFrame(for: "c2"))
        #expect(forSender.changes.map(\.stamp) == forOther.changes.map(\.stamp))
        var encoder = UpdateEncoder()
        let a = text(encoder.encode(forSender))
        let b = text(encoder.encode(forOther))
        #expect(encoder.misses == 1)
        #expect(encoder.hits == 1)
        let fragment = #"{"control":"gain","state":{"value":0.3},"rev":1,"by":"c1"}"#
        #expect(a == #"{"type":"update","rev":1,"ack":1,"changes":["# + fragment + "]}")
        #expect(b == #"{"type":"update","rev":1,"ack":0,"changes":["# + fragment + "]}")
        let parsedA = try JSONParser.parse(Array(a.utf8))
        let parsedB = try JSONParser.parse(Array(b.utf8))
        #expect(parsedA["changes"] == parsedB["changes"])
    }

    @Test("gesture entries are shared the same way, and a new stamp is a new fragment")
    func gestures() throws {
        var room = quietRoom()
        _ = room.apply(ClientMessage(seq: 1, .drag(control: "size", thumb: nil, phase: .begin, pointer: nil)), from: "c1", at: .zero)
        var encoder = UpdateEncoder()
        _ = encoder.encode(try update(room.nextFrame(for: "c1")))
        _ = encoder.encode(try update(room.nextFrame(for: "c2")))
        #expect((encoder.misses, encoder.hits) == (1, 1))
        _ = room.apply(ClientMessage(seq: 2, .drag(control: "size", thumb: nil, phase: .move, pointer: .dx(0.5))), from: "c1", at: .zero)
        let moved = encoder.encode(try update(room.nextFrame(for: "c2")))
        #expect((encoder.misses, encoder.hits) == (2, 1))
        let json = try JSONParser.parse(moved)
        #expect(json["gestures"] == [["control": "size", "thumb": "index", "by": "c1", "phase": "move", "state": ["index": 4, "value": 100]]])
    }

    @Test("every encoded update parses as JSON through a busy session")
    func outputParses() throws {
        var room = quietRoom()
        var encoder = UpdateEncoder(capacity: 8)
        var rng = SplitMix64(seed: 42)
        var seqs: [ClientID: Int] = [:]
        let operations: [Operation] = [
            .drag(control: "blanks", thumb: "upper", phase: .begin, pointer: nil),
            .drag(control: "blanks", thumb: "upper", phase: .move, pointer: .dx(0.3)),
            .drag(control: "blanks", thumb: "upper", phase: .end, pointer: nil),
            .set(control: "color", thumb: "green", value: .number(0.123)),
            .set(control: "color", thumb: nil, value: .text("#A1B2C3")),
            .step(control: "size", thumb: nil, by: 1),
            .set(control: "bpm", thumb: nil, value: .number(1e-7)),
            .drag(control: "gain", thumb: nil, phase: .begin, pointer: .at(0.77)),
            .drag(control: "gain", thumb: nil, phase: .cancel, pointer: nil),
        ]
        var frames = 0
        for _ in 0..<300 {
            let client: ClientID = Bool.random(using: &rng) ? "c1" : "c2"
            let seq = (seqs[client] ?? 0) + 1
            seqs[client] = seq
            let operation = operations[Int.random(in: 0..<operations.count, using: &rng)]
            _ = room.apply(ClientMessage(seq: seq, operation), from: client, at: .zero)
            for recipient: ClientID in ["c1", "c2"] where Bool.random(using: &rng) {
                while let frame = room.nextFrame(for: recipient) {
                    let json = try JSONParser.parse(encoder.encode(frame))
                    #expect(json["type"] == "update" || json["type"] == "reject")
                    frames += 1
                }
            }
            #expect(encoder.cachedFragments <= 8)
        }
        #expect(frames > 100)
        #expect(encoder.hits > 0)
    }

    @Test("a full cache is cleared, and clearing only costs re-encoding")
    func capacity() throws {
        var room = quietRoom()
        var encoder = UpdateEncoder(capacity: 2)
        var seq = 0
        for value in [0.1, 0.2, 0.3] {
            seq += 1
            _ = room.apply(ClientMessage(seq: seq, .set(control: "gain", thumb: nil, value: .number(value))), from: "c1", at: .zero)
            _ = encoder.encode(try update(room.nextFrame(for: "c1")))
        }
        #expect(encoder.misses == 3)
        #expect(encoder.cachedFragments <= 2)
        let late = try update(room.nextFrame(for: "c2"))
        let json = try JSONParser.parse(encoder.encode(late))
        #expect(json["changes"] == [["control": "gain", "state": ["value": 0.3], "rev": 3, "by": "c1"]])
    }

    @Test("an encoder shared by two rooms never sends one room's bytes for the other's equal stamp")
    func sharedBetweenRooms() throws {
        var first = quietRoom()
        var second = quietRoom()
        _ = first.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.25))), from: "c1", at: .zero)
        _ = second.apply(ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.75))), from: "c1", at: .zero)
        let a = try update(first.nextFrame(for: "c2"))
        let b = try update(second.nextFrame(for: "c2"))
        #expect(a.changes.map(\.stamp) == b.changes.map(\.stamp))
        var encoder = UpdateEncoder()
        _ = encoder.encode(a)
        let json = try JSONParser.parse(encoder.encode(b))
        #expect(json["changes"]?.arrayValue?.first?["state"] == ["value": 0.75])
        #expect(encoder.misses == 2)
    }
}

@Suite("Batch notes on the wire")
struct BatchNoteWireTests {
    private func encoded(_ cause: BatchCause, controls: [String] = ["size", "gain"]) -> String {
        var update = Update(revision: 9, ack: 0, changes: [], gestures: [], joined: [], left: [])
        update.batch = BatchNote(revision: 9, by: "c3", cause: cause, controls: controls)
        var encoder = UpdateEncoder()
        return String(decoding: encoder.encode(update), as: UTF8.self)
    }

    @Test("a note is the update's `batch`: rev, by, cause and what goes with it, then the controls changed")
    func causes() {
        #expect(encoded(.preset(name: "Warm \"pad\"")) ==
            #"{"type":"update","rev":9,"ack":0,"batch":{"rev":9,"by":"c3","cause":"preset","preset":"Warm \"pad\"","controls":["size","gain"]}}"#)
        #expect(encoded(.restore(revision: 1402)).hasSuffix(#""batch":{"rev":9,"by":"c3","cause":"restore","from":1402,"controls":["size","gain"]}}"#))
        #expect(encoded(.reset(control: "gain"), controls: ["gain"]).hasSuffix(#""cause":"reset","control":"gain","controls":["gain"]}}"#))
        #expect(encoded(.reset(control: nil)).hasSuffix(#""cause":"reset","controls":["size","gain"]}}"#))
    }

    @Test("a room's recall reaches another member's frame with its note, beside the changes")
    func fromARoom() {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        _ = room.join("c2", name: "Bob", at: .zero)
        while room.nextFrame(for: "c2") != nil {}
        _ = room.apply(ClientMessage(seq: 1, .batch(Batch(.preset(name: "Warm"), states: ["gain": .slider(value: 0.8)]))), from: "c1", at: .zero)
        var encoder = UpdateEncoder()
        let text = room.nextFrame(for: "c2").map { String(decoding: encoder.encode($0), as: UTF8.self) } ?? ""
        #expect(text.contains(#""changes":[{"control":"gain","state":{"value":0.8}"#))
        #expect(text.contains(#""batch":{"rev":1,"by":"c1","cause":"preset","preset":"Warm","controls":["gain"]}"#))
    }
}
