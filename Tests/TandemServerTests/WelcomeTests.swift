import TandemTestSupport
import Foundation
import Testing

@Suite("Welcome")
struct WelcomeTests {
    @Test("the handshake's accept value is computed as RFC 6455 shows (checks the test client's SHA-1)")
    func acceptValueMatchesRFCExample() {
        #expect(RawWebSocket.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let empty = SHA1.hash([]).map { String(format: "%02x", $0) }.joined()
        #expect(empty == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test("the first frame in the demo room is a welcome with the five controls at their initial states and the newcomer among the peers")
    func demoWelcome() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let client = try WireClient(port: server.port, name: "Ann")
        #expect(client.socket.handshake.headers["sec-websocket-protocol"] == "tandem.v1")
        let welcome = client.welcome

        #expect(welcome["type"] as? String == "welcome")
        #expect((welcome["protocol"] as? NSNumber)?.intValue == 1)
        #expect(!client.id.isEmpty)
        #expect(welcome["room"] as? String == "demo")
        #expect(welcome["rev"] is NSNumber)

        let controls = objects(welcome, "controls")
        #expect(controls.map { $0["id"] as? String } == ["size", "blanks", "color", "gain", "bpm"])
        #expect(controls.map { $0["type"] as? String } == ["snap", "range", "color", "slider", "gauge"])
        let expected: [String: [String: Any]] = [
            "size": ["index": 2, "value": 60],
            "blanks": ["lower": 0, "upper": 1],
            "color": ["red": 0.2, "green": 0.4, "blue": 0.6, "hex": "#336699"],
            "gain": ["value": 0.5],
            "bpm": ["value": 67, "fraction": 67.0 / 170],
        ]
        for control in controls {
            guard let id = control["id"] as? String, let want = expected[id] else { continue }
            if id == "bpm" {
                // The fraction may be written rounded (the contract shows 0.394).
                let state = control["state"] as? JSONObject
                #expect((state?["value"] as? NSNumber)?.doubleValue == 67, "bpm state: \(describe(state ?? [:]))")
                let fraction = (state?["fraction"] as? NSNumber)?.doubleValue ?? -1
                #expect(abs(fraction - 67.0 / 170) < 0.001, "bpm fraction: \(fraction)")
            } else {
                #expect(stateMatches(control["state"], want), "\(id) state: \(describe(control["state"] ?? "missing"))")
            }
        }

        let peers = objects(welcome, "peers")
        let me = peers.first { $0["client"] as? String == client.id }
        #expect(me != nil, "peers \(describe(peers)) should include \(client.id)")
        #expect(me?["name"] as? String == "Ann")
        #expect((me?["color"] as? String)?.hasPrefix("#") == true)
    }

    @Test("a second newcomer sees both people in joining order, and the first is told it joined")
    func secondWelcomeListsBoth() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let ann = try WireClient(port: server.port, name: "Ann")
        let ben = try WireClient(port: server.port, name: "Ben")
        let peers = objects(ben.welcome, "peers")
        #expect(peers.map { $0["client"] as? String } == [ann.id, ben.id])
        #expect(peers.map { $0["name"] as? String } == ["Ann", "Ben"])
        let joined = try ann.waitFor("Ben in joined") { frame in
            objects(frame, "joined").contains { $0["client"] as? String == ben.id }
        }
        #expect(objects(joined, "joined").first?["name"] as? String == "Ben")
    }

    @Test("names from ?name= are URL-decoded, trimmed and cut to 64 characters, and default to Guest")
    func namesAreCleaned() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let spaced = try WireClient(port: server.port, name: "  Ann Lee  ")
        let nameless = try WireClient(port: server.port)
        let long = try WireClient(port: server.port, name: String(repeating: "x", count: 70))
        let peers = objects(long.welcome, "peers")
        func name(_ client: WireClient) -> String? {
            peers.first { $0["client"] as? String == client.id }?["name"] as? String
        }
        #expect(name(spaced) == "Ann Lee")
        #expect(name(nameless) == "Guest")
        #expect(name(long) == String(repeating: "x", count: 64))
        let colors = peers.compactMap { $0["color"] as? String }
        #expect(Set(colors).count == 3, "each present person has their own colour: \(colors)")
    }
}
