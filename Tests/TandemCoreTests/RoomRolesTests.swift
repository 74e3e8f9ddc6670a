import Foundation
import Testing
import TandemCore

/// The engine's roles as types (Sources/TandemCore/Replication/RoomView.swift,
/// RoomAuthority.swift): what a view or an authority may not do does not
/// compile. Each snippet is type-checked by `swiftc` against the TandemCore
/// module this test run built, as a client of the core writes it (no
/// `@testable`): the legal one must compile, and each illegal line must be an
/// error at that line.
@Suite("Room roles")
struct RoomRolesTests {
    /// A schema, a view and an authority, for the snippets to use.
    static let prelude = """
        import TandemCore
        let schema = RoomSchema.demo
        var view = RoomView(schema: schema, committed: [], revisions: [], revision: 0, committedBy: [])
        var authority = RoomAuthority(schema: schema, committed: [], revisions: [], revision: 0, committedBy: [])
        var room = Room(schema: schema)
        let set = ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(1)))
        let delta = authority.publishDelta()

        """

    @Test("what each role may do compiles")
    func legalCalls() throws {
        let errors = try Self.typecheck(Self.prelude + """
            _ = authority.apply(set, from: "a", at: .zero)
            _ = authority.register("a", name: "A", role: .editor, ack: 0, at: .zero)
            view.absorb(delta, isLocal: { _ in true })
            view.absorb(authority.snapshotForViews, isLocal: { _ in true })
            _ = view.nextFrame(for: "a")
            view.holdAck("a", below: nil)
            view.dropLocal("a")
            _ = room.apply(set, from: "a", at: .zero)
            _ = room.nextFrame(for: "a")
            _ = view.room.revision + authority.room.revision
            """)
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test("a view cannot apply, join or leave; an authority gives no frames; a standalone room does not replicate")
    func illegalCalls() throws {
        // Each line, and what the compiler must say of it: no such member
        // (the role has no such call), a member this module keeps to itself,
        // or a mutation of the read-only room inside a role.
        let noMember = "has no member", inaccessible = "inaccessible", readOnly = "'room' setter is inaccessible"
        let illegal: [(String, String)] = [
            (#"_ = view.apply(set, from: "a", at: .zero)"#, noMember),
            (#"_ = view.join("a", name: "A", at: .zero)"#, noMember),
            (#"_ = view.leave("a", at: .zero)"#, noMember),
            (#"_ = view.room.apply(set, from: "a", at: .zero)"#, readOnly),
            (#"_ = view.room.expire(at: .zero)"#, readOnly),
            (#"_ = authority.nextFrame(for: "a")"#, noMember),
            (#"_ = authority.room.nextFrame(for: "a")"#, readOnly),
            (#"authority.absorb(delta, isLocal: { _ in true })"#, noMember),
            (#"_ = room.publishDelta()"#, inaccessible),
            (#"room.absorb(delta, isLocal: { _ in true })"#, inaccessible),
            (#"room.holdAck("a", below: nil)"#, inaccessible),
        ]
        let first = Self.prelude.split(separator: "\n", omittingEmptySubsequences: false).count
        let errors = try Self.typecheck(Self.prelude + illegal.map(\.0).joined(separator: "\n") + "\n")
        for (k, (line, why)) in illegal.enumerated() {
            let said = errors.filter { $0.line == first + k }
            #expect(said.contains { $0.message.contains(why) }, "\(line): expected an error saying '\(why)', got \(said)")
        }
        #expect(errors.allSatisfy { $0.line >= first }, "the prelude must compile: \(errors)")
    }

    struct CompileError: CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "\(line): \(message)" }
    }

    /// The errors `swiftc -typecheck` reports for `source`, by line.
    static func typecheck(_ source: String) throws -> [CompileError] {
        let modules = try #require(modulesDirectory(), "no TandemCore.swiftmodule next to the test binary or under .build")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-roles-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errors = text.split(separator: "\n").compactMap { line -> CompileError? in
            // snippet.swift:LINE:COL: error: MESSAGE
            let parts = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
            guard parts.count == 5, parts[0].hasSuffix("snippet.swift"), parts[3] == " error", let n = Int(parts[1]) else { return nil }
            return CompileError(line: n, message: String(parts[4]))
        }
        if process.terminationStatus != 0 && errors.isEmpty {
            Issue.record("swiftc failed without an error in the snippet:\n\(text)")
        }
        return errors
    }

    /// Where this run's TandemCore.swiftmodule is: beside the test binary
    /// (`.build/<config>/Modules`), else the repository's debug build.
    static func modulesDirectory() -> URL? {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var candidates: [URL] = []
        var dir = binary.deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(dir.appendingPathComponent("Modules"))
            dir = dir.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/Modules"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("TandemCore.swiftmodule").path) }
    }
}
