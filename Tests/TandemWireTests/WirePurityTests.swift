import Foundation
import Testing

/// The wire module stays as portable as the core: the standard library and the core only.
@Suite("The wire module's purity")
struct WirePurityTests {
    @Test("no source file of the wire module imports anything but TandemCore")
    func importsOnlyTheCore() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TandemWire").resolvingSymlinksInPath()
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("import ") {
                    #expect(code == "import TandemCore", "\(file): \(code)")
                }
            }
        }
    }
}
