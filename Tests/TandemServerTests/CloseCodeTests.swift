import TandemTestSupport
import Foundation
import Testing

@Suite("Close codes")
struct CloseCodeTests {
    @Test("an unknown room is closed with 4404 'unknown room'")
    func unknownRoom() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let socket = try RawWebSocket(port: server.port, path: "/rooms/nope")
        let message = try socket.receive()
        #expect(message == .close(code: 4404, reason: "unknown room"))
    }

    @Test("a binary frame closes the connection with 1003")
    func binaryFrame() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let client = try WireClient(port: server.port)
        try client.socket.send(binary: Array("{\"type\":\"step\",\"seq\":1,\"control\":\"size\",\"by\":1}".utf8))
        let closed = try client.waitForClose()
        #expect(closed.code == 1003)
    }

    @Test("a 5,000-byte message is over the default 4 KiB limit and closes with 1009")
    func oversizedMessage() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let client = try WireClient(port: server.port)
        let prefix = "{\"type\":\"step\",\"seq\":1,\"control\":\"size\",\"by\":1,\"pad\":\""
        let text = prefix + String(repeating: "x", count: 5000 - prefix.utf8.count - 2) + "\"}"
        #expect(text.utf8.count == 5000)
        try client.socket.send(text: text)
        let closed = try client.waitForClose()
        #expect(closed.code == 1009)
    }

    @Test("--max-frame raises the limit: the same 5,000-byte message is then read and processed, and the connection stays open")
    func maxFrameFlag() throws {
        let server = try ServerProcess.start(["--max-frame", "8192"])
        defer { server.kill() }
        let client = try WireClient(port: server.port)
        let prefix = "{\"type\":\"step\",\"seq\":1,\"control\":\"size\",\"by\":1,\"pad\":\""
        let text = prefix + String(repeating: "x", count: 5000 - prefix.utf8.count - 2) + "\"}"
        try client.socket.send(text: text)
        // Whatever the decoder makes of the extra field, the connection stays open and seq 1 is processed.
        let update = try client.waitForAck(1)
        #expect((update["ack"] as? NSNumber)?.intValue == 1)
    }
}
