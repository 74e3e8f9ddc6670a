import TandemTestSupport
import Foundation
import Testing

@Suite("Two clients, one drag")
struct TwoClientDragTests {
    @Test("a drag's preview reaches the other client as a gesture entry, and the release commits to both with rev and by")
    func previewThenCommit() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let a = try WireClient(port: server.port, name: "A")
        let b = try WireClient(port: server.port, name: "B")

        try a.drag("blanks", "upper", "begin")
        // upper starts at 1 (position 1/9); dx 0.25 → round((1/9 + 0.25) * 9) = round(3.25) = 3.
        let moveSeq = try a.drag("blanks", "upper", "move", dx: 0.25)

        let seenByB = try b.waitFor("A's move on blanks.upper") { frame in
            objects(frame, "gestures").contains { $0["phase"] as? String == "move" && $0["by"] as? String == a.id }
        }
        let entry = objects(seenByB, "gestures").last { $0["phase"] as? String == "move" }
        #expect(entry?["control"] as? String == "blanks")
        #expect(entry?["thumb"] as? String == "upper")
        #expect(stateMatches(entry?["state"], ["lower": 0, "upper": 3]), "previewed state: \(describe(entry ?? [:]))")
        #expect(objects(seenByB, "changes").isEmpty, "a preview commits nothing")
        _ = try a.waitForAck(moveSeq)

        let endSeq = try a.drag("blanks", "upper", "end")
        let isCommit: (JSONObject) -> Bool = { change($0, "blanks") != nil }
        let aFrame = try a.waitFor("the blanks commit", isCommit)
        let bFrame = try b.waitFor("the blanks commit", isCommit)
        for (who, frame) in [("A", aFrame), ("B", bFrame)] {
            let committed = change(frame, "blanks")
            #expect(stateMatches(committed?["state"], ["lower": 0, "upper": 3]), "\(who): \(describe(frame))")
            #expect((committed?["rev"] as? NSNumber)?.intValue ?? 0 >= 1, "\(who): \(describe(frame))")
            #expect(committed?["by"] as? String == a.id, "\(who): \(describe(frame))")
            #expect((frame["rev"] as? NSNumber)?.intValue ?? 0 >= (committed?["rev"] as? NSNumber)?.intValue ?? .max)
        }
        var aAck = (aFrame["ack"] as? NSNumber)?.intValue
        if aAck != endSeq { aAck = (try a.waitForAck(endSeq)["ack"] as? NSNumber)?.intValue }
        #expect(aAck == endSeq)
        let ended = objects(bFrame, "gestures").last { $0["thumb"] as? String == "upper" }
        if let ended { #expect(ended["phase"] as? String == "end") }
    }
}
