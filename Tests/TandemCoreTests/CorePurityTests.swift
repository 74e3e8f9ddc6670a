import Foundation
import Testing

/// The core must stay reusable as-is by a SwiftUI app and deterministic in tests.
@Suite("The core's purity")
struct CorePurityTests {
    @Test("no source file of the core imports a module or reads a clock")
    func coreImportsNothing() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TandemCore")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                #expect(!code.hasPrefix("import "), "\(file): \(code)")
                for clock in ["ContinuousClock", "SuspendingClock", "Date()", "clock_gettime", ".now"] {
                    #expect(!code.contains(clock), "\(file) reads a clock: \(code)")
                }
            }
        }
    }
}
