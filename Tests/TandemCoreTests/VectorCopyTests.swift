import Foundation
import Testing
@testable import TandemCore

/// The project carries its own copy of the shared vectors so that a clone
/// without the sibling `shared/` folder still tests the math. Where `shared/`
/// is present (the workspace the project is developed in), the copy must not
/// drift from it.
@Suite("The project's copy of the shared vectors")
struct VectorCopyTests {
    /// `<package root>/../shared/vectors/core.json`.
    static var sharedURL: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // TandemCoreTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // package root
            .deletingLastPathComponent() // the folder holding the package and shared/
            .appendingPathComponent("shared/vectors/core.json")
    }

    static var sharedIsPresent: Bool {
        FileManager.default.fileExists(atPath: sharedURL.path)
    }

    // A clone of the project has no ../shared: the test is then reported as
    // skipped (with the reason below), never as a failure.
    @Test("is byte for byte the shared core.json when shared/ sits beside the package",
          .enabled(if: VectorCopyTests.sharedIsPresent, "no ../shared/vectors/core.json beside the package; nothing to compare"))
    func copyMatchesShared() throws {
        let shared = try Data(contentsOf: Self.sharedURL)
        let copy = try Data(contentsOf: CoreVectorFile.url)
        let firstDifference = zip(shared, copy).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(shared == copy, """
            Tests/Fixtures/vectors/core.json (\(copy.count) bytes) differs from \(Self.sharedURL.path) \
            (\(shared.count) bytes)\(firstDifference.map { ", first at byte \($0)" } ?? ""); copy the shared file over
            """)
    }
}
