import TandemTestSupport
import Foundation
import Testing

@Suite("Rejects over the wire")
struct RejectTests {
    /// Sends a harmless valid message and expects it acked: the connection is still open and working.
    private func expectStillOpen(_ client: WireClient, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let seq = try client.send(["type": "step", "control": "size", "by": 0])
        let update = try client.waitForAck(seq)
        #expect((update["ack"] as? NSNumber)?.intValue == seq, sourceLocation: sourceLocation)
    }

    private func isReject(_ frame: JSONObject) -> Bool { frame["type"] as? String == "reject" }

    /// The reject for `seq` comes before any update carrying its ack (Tandem's decisions, Messages).
    private func expectNoAckBefore(_ seq: Int, _ client: WireClient, sourceLocation: SourceLocation = #_sourceLocation) {
        let early = client.received.dropLast().filter { ($0["ack"] as? NSNumber)?.intValue ?? 0 >= seq }
        #expect(early.isEmpty, "ack \(seq) arrived before its reject: \(early.map(describe))", sourceLocation: sourceLocation)
    }

    @Test("begin on a held thumb is rejected busy naming the holder, and the connection stays open")
    func busyNamesHolder() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let a = try WireClient(port: server.port)
        let b = try WireClient(port: server.port)
        try a.waitForAck(try a.drag("gain", nil, "begin"))
        let seq = try b.drag("gain", nil, "begin")
        let reject = try b.waitFor("a reject", isReject)
        #expect(reject["code"] as? String == "busy")
        #expect((reject["seq"] as? NSNumber)?.intValue == seq)
        #expect(reject["holder"] as? String == a.id)
        #expect(reject["message"] is String)
        expectNoAckBefore(seq, b)
        #expect((try b.waitForAck(seq)["ack"] as? NSNumber)?.intValue == seq, "a refused message is acked too")
        try expectStillOpen(b)
    }

    @Test("a message naming no such control is rejected unknown_control, and the connection stays open")
    func unknownControl() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let client = try WireClient(port: server.port)
        let seq = try client.drag("nope", nil, "begin")
        let reject = try client.waitFor("a reject", isReject)
        #expect(reject["code"] as? String == "unknown_control")
        #expect((reject["seq"] as? NSNumber)?.intValue == seq)
        expectNoAckBefore(seq, client)
        try expectStillOpen(client)
    }

    @Test("text that is not JSON is rejected bad_message with a null seq, and the connection stays open")
    func notJSON() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let client = try WireClient(port: server.port)
        try client.socket.send(text: "not json")
        let reject = try client.waitFor("a reject", isReject)
        #expect(reject["code"] as? String == "bad_message")
        #expect(reject.keys.contains("seq"))
        #expect(reject["seq"] is NSNull, "seq: \(describe(reject))")
        try expectStillOpen(client)
    }
}
