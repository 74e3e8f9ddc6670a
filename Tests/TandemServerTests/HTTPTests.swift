import TandemTestSupport
import Foundation
import Testing

@Suite("HTTP")
struct HTTPTests {
    @Test("GET /healthz answers 200 ok, /metrics is Prometheus text with tandem_connections, an unknown room is 404")
    func readEndpoints() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let health = try HTTPClient.get(port: server.port, "/healthz")
        #expect(health.status == 200)
        #expect(health.text.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")

        let client = try WireClient(port: server.port)
        _ = client
        let metrics = try HTTPClient.get(port: server.port, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(metrics.text.contains("tandem_connections"))
        #expect(metrics.text.split(separator: "\n").contains("tandem_connections 1"), "one client is connected")

        let nope = try HTTPClient.get(port: server.port, "/api/rooms/nope")
        #expect(nope.status == 404)
        #expect(try nope.json()["code"] as? String == "unknown_room")

        let demo = try HTTPClient.get(port: server.port, "/api/rooms/demo")
        #expect(demo.status == 200)
        let body = try demo.json()
        #expect(body["room"] as? String == "demo")
        #expect(body["type"] == nil && body["client"] == nil, "the API body has no client fields")
        #expect(objects(body, "controls").count == 5)
    }

    @Test("PUT of a control answers 200 with the committed state, and connected clients receive the change by api")
    func putCommits() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let client = try WireClient(port: server.port)
        let response = try HTTPClient.put(port: server.port, "/api/rooms/demo/controls/gain", json: "{\"value\":0.25}")
        #expect(response.status == 200, "body: \(response.text)")
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        let body = try response.json()
        #expect(body["control"] as? String == "gain")
        #expect(stateMatches(body["state"], ["value": 0.25]), "body: \(response.text)")
        #expect((body["rev"] as? NSNumber)?.intValue ?? 0 >= 1)

        let update = try client.waitFor("the change to gain") { change($0, "gain") != nil }
        let gain = change(update, "gain")
        #expect(stateMatches(gain?["state"], ["value": 0.25]))
        #expect(gain?["by"] as? String == "api")
        #expect((gain?["rev"] as? NSNumber)?.intValue == (body["rev"] as? NSNumber)?.intValue)
    }

    @Test("PUT with a bad value answers 400 with the reject code and changes nothing; an unknown control is 404")
    func putRefusals() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let bad = try HTTPClient.put(port: server.port, "/api/rooms/demo/controls/gain", json: "{\"value\":\"loud\"}")
        #expect(bad.status == 400, "body: \(bad.text)")
        #expect(try bad.json()["code"] as? String == "bad_value")
        let unknown = try HTTPClient.put(port: server.port, "/api/rooms/demo/controls/nope", json: "{\"value\":1}")
        #expect(unknown.status == 404, "body: \(unknown.text)")
        let demo = try HTTPClient.get(port: server.port, "/api/rooms/demo").json()
        let gain = objects(demo, "controls").first { $0["id"] as? String == "gain" }
        #expect(stateMatches(gain?["state"], ["value": 0.5]))
    }
}
