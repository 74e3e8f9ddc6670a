import TandemTestSupport
import Foundation
import Testing

@Suite("Fragmented messages")
struct FragmentationTests {
    @Test("a text message sent as three fragments is reassembled, applied and acked")
    func threeFragments() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let mover = try WireClient(port: server.port)
        let watcher = try WireClient(port: server.port)
        let message = "{\"type\":\"drag\",\"seq\":1,\"control\":\"gain\",\"phase\":\"begin\",\"dx\":0.25}"
        let bytes = Array(message.utf8)
        let cut1 = bytes.count / 3, cut2 = 2 * bytes.count / 3
        try mover.socket.send(fragments: [
            String(decoding: bytes[..<cut1], as: UTF8.self),
            String(decoding: bytes[cut1..<cut2], as: UTF8.self),
            String(decoding: bytes[cut2...], as: UTF8.self),
        ])
        let update = try mover.waitFor("the ack of seq 1 or a reject") { frame in
            frame["type"] as? String == "reject" || (frame["ack"] as? NSNumber)?.intValue ?? 0 >= 1
        }
        #expect(update["type"] as? String == "update", "got \(describe(update))")
        #expect((update["ack"] as? NSNumber)?.intValue == 1)
        let seen = try watcher.waitFor("the gesture on gain") { !objects($0, "gestures").isEmpty }
        let entry = objects(seen, "gestures").last
        #expect(entry?["control"] as? String == "gain")
        #expect(entry?["by"] as? String == mover.id)
        #expect(stateMatches(entry?["state"], ["value": 0.75]), "begin with dx 0.25 from 0.5: \(describe(entry ?? [:]))")
    }
}
