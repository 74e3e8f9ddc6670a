import Testing
import TandemCore
import TandemWire

@Suite("Undo and redo decoding")
struct UndoDecoderTests {
    @Test("undo and redo decode to their operations with their seq")
    func decodesUndoAndRedo() {
        #expect(decode(#"{"type":"undo","seq":9}"#) == .message(ClientMessage(seq: 9, .undo)))
        #expect(decode(#"{"type":"redo","seq":10}"#) == .message(ClientMessage(seq: 10, .redo)))
    }

    @Test("keys undo and redo do not use are ignored, as for every other type")
    func extraKeysIgnored() {
        #expect(decode(#"{"type":"undo","seq":3,"control":"size","thumb":7,"by":"x","future":[1]}"#)
                == .message(ClientMessage(seq: 3, .undo)))
        #expect(decode(#"{"seq":4,"type":"redo","control":null}"#) == .message(ClientMessage(seq: 4, .redo)))
    }

    @Test("undo and redo still need a usable seq, and the type is case-sensitive")
    func needsSeqAndExactType() {
        for frame in [#"{"type":"undo"}"#, #"{"type":"undo","seq":0}"#, #"{"type":"redo","seq":"2"}"#] {
            guard case let .refused(seq, code, _) = decode(frame) else {
                Issue.record("\(frame) decoded")
                continue
            }
            #expect(seq == nil && code == .badMessage, "\(frame)")
        }
        guard case let .refused(seq, code, message) = decode(#"{"type":"UNDO","seq":5}"#) else {
            Issue.record("UNDO decoded")
            return
        }
        #expect(seq == 5 && code == .badMessage)
        #expect(message.contains("undo") && message.contains("redo"))
    }

    @Test("a decoded undo and redo revert and re-apply the sender's step")
    func decodedUndoApplies() {
        var room = Room(schema: .demo)
        _ = room.join("c1", name: "Ann", at: .zero)
        let frames = [
            #"{"type":"step","seq":1,"control":"size","by":1}"#,
            #"{"type":"undo","seq":2}"#,
            #"{"type":"redo","seq":3}"#,
        ]
        var sizes: [ControlState] = []
        for frame in frames {
            guard case let .message(message) = decode(frame) else {
                Issue.record("did not decode: \(frame)")
                continue
            }
            let effects = room.apply(message, from: "c1", at: .zero)
            #expect(!effects.contains { if case .reject = $0 { true } else { false } }, "\(frame)")
            sizes.append(room.committed[0])
        }
        #expect(sizes == [.snap(index: 3, value: 80), .snap(index: 2, value: 60), .snap(index: 3, value: 80)])
    }
}
