import Foundation
import Testing

/// The room seam holds (docs/architecture.md, "The room seam"): the server
/// reaches rooms only through `RoomService`, whichever kind serves. Outside
/// `Sources/TandemServer/Replicated/` nothing imports the Redis client or the
/// relay codec, names the cluster, reads a room's replication mode or names
/// a kind of rooms; local rooms know nothing of replicated ones. Only code
/// counts: comments and string literals (an endpoint's path, a log line) are
/// left out. Configuration (ServerConfig.swift, Settings/) names the mode a
/// person picks, and `Replicated/RoomServices.swift` is where it is read.
@Suite("The room seam's fitness")
struct RoomSeamFitnessTests {
    static let server = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/TandemServer")

    /// Every Swift file under the server, by path relative to it, with its code only.
    static func files() throws -> [(path: String, code: String)] {
        let paths = try #require(FileManager.default.enumerator(atPath: server.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
        return try paths.map { ($0, code(of: try String(contentsOf: server.appendingPathComponent($0), encoding: .utf8))) }
    }

    /// `text` without string literals (multi-line ones included) and comments.
    static func code(of text: String) -> String {
        var out = text
        for pattern in [#"(?s)""".*?""""#, #""(\\.|[^"\\\n])*""#, #"(?m)//.*$"#, #"(?s)/\*.*?\*/"#] {
            out = out.replacingOccurrences(of: pattern, with: "\"\"", options: .regularExpression)
        }
        return out
    }

    static func hits(_ pattern: String, in code: String) -> [String] {
        code.split(separator: "\n").map(String.init).filter { $0.range(of: pattern, options: .regularExpression) != nil }
    }

    @Test("outside the replicated rooms nothing imports Redis or the relay, names the cluster or reads a room's mode")
    func nothingOutsideKnowsTheCluster() throws {
        let files = try Self.files()
        #expect(files.count > 60)
        let outside = files.filter { !$0.path.hasPrefix("Replicated/") && $0.path != "ServerConfig.swift" && !$0.path.hasPrefix("Settings/") }
        #expect(outside.count > 40)
        for (path, code) in outside {
            for pattern in [#"^\s*import\s+TandemRedis\b"#, #"^\s*import\s+TandemRelay\b"#, #"\b[Cc]luster\b"#, #"\bClusterSettings\b"#,
                            #"\.mode\b"#, #"\bReplicaMode\b"#, #"\bReplicatedRooms\b"#, #"\bRoomReplica\b"#] {
                #expect(Self.hits(pattern, in: code).isEmpty, "\(path) has \(pattern): \(Self.hits(pattern, in: code))")
            }
        }
    }

    @Test("the server and the shared room code name no kind of rooms; local rooms name no replicated ones")
    func oneChoice() throws {
        for (path, code) in try Self.files() where !path.hasPrefix("Replicated/") {
            let local = Self.hits(#"\bLocalRooms\b"#, in: code)
            #expect(path.hasPrefix("Local/") || local.isEmpty, "\(path) names LocalRooms: \(local)")
        }
        let choice = try Self.files().filter { Self.hits(#"\b(LocalRooms|ReplicatedRooms)\s*\("#, in: $0.code).count > 0 }
        #expect(choice.map(\.path) == ["Replicated/RoomServices.swift"], "rooms are made in one place only")
    }

    @Test("the fitness check itself sees code, not comments or strings")
    func strips() {
        let code = Self.code(of: """
            let a = "cluster" // the cluster
            /* cluster */ let b = 1
            let c = cluster.node
            """)
        #expect(Self.hits(#"\bcluster\b"#, in: code) == ["let c = cluster.node"])
    }
}
