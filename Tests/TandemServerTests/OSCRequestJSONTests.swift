import TandemCore
import TandemWire
import Testing
@testable import TandemServer

@Suite("OSC writes as the protocol's JSON (relayed to a cluster's owner)")
struct OSCRequestJSONTests {
    static let operations: [Operation] = [
        .set(control: "gain", thumb: nil, value: .number(0.25)),
        .set(control: "gain", thumb: nil, value: .number(-1e-7)),
        .set(control: "blanks", thumb: "lower", value: .number(2)),
        .set(control: "color", thumb: nil, value: .text("#A0b1C2")),
        .set(control: "color", thumb: "red", value: .number(0.5)),
        .set(control: "filter", thumb: nil, value: .flag(true)),
        .set(control: "go", thumb: nil, value: .flag(false)),
        .set(control: "pad", thumb: nil, value: .point(x: 0.25, y: 440)),
        .set(control: "pad", thumb: nil, value: .point(x: nil, y: 3)),
        .set(control: "pad", thumb: nil, value: .point(x: 1, y: nil)),
        .set(control: "we\"ird\\", thumb: nil, value: .number(1)),
        .step(control: "size", thumb: nil, by: -2),
        .step(control: "color", thumb: "blue", by: 1e15),
        .step(control: "pad", thumb: nil, by: 1, byY: -1),
        .undo,
        .redo,
        .reset(control: nil),
        .reset(control: "cutoff"),
    ]

    @Test("every operation OSC makes decodes back to itself", arguments: operations)
    func roundTrip(_ operation: Operation) throws {
        let bytes = try #require(OSCRequestJSON.encode(seq: 7, operation))
        guard case let .message(message) = MessageDecoder.decode(bytes) else {
            Issue.record("not a message: \(String(decoding: bytes, as: UTF8.self))")
            return
        }
        #expect(message == ClientMessage(seq: 7, operation))
    }

    @Test("drags and batches are not OSC's")
    func notOSC() {
        #expect(OSCRequestJSON.encode(seq: 1, .drag(control: "gain", thumb: nil, phase: .begin, pointer: nil)) == nil)
        #expect(OSCRequestJSON.encode(seq: 1, .set(control: "gain", thumb: nil, value: .other("array"))) == nil)
    }
}
