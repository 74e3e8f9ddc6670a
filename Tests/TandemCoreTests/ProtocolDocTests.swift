import Foundation
import Testing

/// The project's docs/protocol.md carries the wire contract verbatim between
/// markers; upstream keeps the original in ../shared, which clones lack.
@Suite("docs/protocol.md")
struct ProtocolDocTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func contract() throws -> String {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- contract: begin -->\n"))
        let end = try #require(text.range(of: "<!-- contract: end -->"))
        return String(text[begin.upperBound..<end.lowerBound])
    }

    @Test("holds the contract between its markers, with every reject code and close code")
    func holdsTheContract() throws {
        let contract = try contract()
        for word in ["bad_message", "unknown_control", "unknown_thumb", "bad_value", "read_only",
                     "busy", "no_gesture", "forbidden", "rate_limited", "4404", "4008", "1009"] {
            #expect(contract.contains(word), "\(word) missing")
        }
    }

    @Test("still matches ../shared/protocol.md when that copy is beside the project")
    func matchesShared() throws {
        let shared = Self.root.deletingLastPathComponent().appendingPathComponent("shared/protocol.md")
        guard FileManager.default.fileExists(atPath: shared.path) else { return } // a clone has no shared/
        #expect(try contract() == String(contentsOf: shared, encoding: .utf8))
    }
}
