import TandemTestSupport
import Foundation
import Testing
import TandemAuth
import TandemClient
import TandemCore

/// The scenarios that need auth on. Scenario 8: with auth on, the client asks its token provider again before
/// the token expires and sends `{"type":"auth"}`; the connection outlives the first token.
@Suite(.serialized)
struct AuthScenarioTests {
    /// Counts the tokens it mints (each valid `lifetime` seconds).
    final class Provider: @unchecked Sendable {
        let minter: TokenMinter
        let lifetime: Double
        private let lock = NSLock()
        private var minted = 0

        init(secret: String, lifetime: Double) {
            minter = TokenMinter(secret: Array(secret.utf8))
            self.lifetime = lifetime
        }

        var count: Int { lock.withLock { minted } }

        func token() -> String {
            lock.withLock { minted += 1 }
            return minter.mint(Claims(subject: "trainer", name: "Trainer", rooms: .all, role: .editor,
                                      expires: Date().timeIntervalSince1970 + lifetime))
        }
    }

    @Test func scenario8TokenRefresh() async throws {
        let secretFile = try SecretFile()
        let secret = secretFile.secret
        let server = try ServerProcess.start(["--auth-secret-file", secretFile.path, "--auth-leeway", "0"])
        defer { _ = server.stop() }
        let provider = Provider(secret: secret, lifetime: 5)
        let room = try await RoomSession.connect(roomURL(server), tokenProvider: { provider.token() })
        defer { room.close() }
        let events = Collector(room.events)
        #expect(room.currentRole == "editor")
        let first = room.client
        // Past the first token's exp (5 s, no leeway): the server would have closed with 4401.
        try await Task.sleep(nanoseconds: 6_500_000_000)
        #expect(provider.count >= 2)
        #expect(events.all.isEmpty, "the connection dropped: \(events.all)")
        #expect(room.client == first)
        try await room.control("gain").set(0.9)
        #expect(room.control("gain").value == 0.9)
    }

    @Test func scenario3ViewerSetIsForbidden() async throws {
        let secretFile = try SecretFile()
        let secret = secretFile.secret
        let server = try ServerProcess.start(["--auth-secret-file", secretFile.path])
        defer { _ = server.stop() }
        let minter = TokenMinter(secret: Array(secret.utf8))
        let token = minter.mint(Claims(subject: "v", name: "Vera", rooms: .all, role: .viewer,
                                       expires: Date().timeIntervalSince1970 + 60))
        let room = try await RoomSession.connect(roomURL(server), token: token)
        defer { room.close() }
        #expect(room.currentRole == "viewer")
        await #expect { try await room.control("gain").set(0.2) } throws: { error in
            if case .forbidden = error as? TandemError { true } else { false }
        }
        #expect(room.control("gain").value == 0.5)
    }

    @Test func scenario8BadTokenIsRefused() async throws {
        let secretFile = try SecretFile()
        let server = try ServerProcess.start(["--auth-secret-file", secretFile.path])
        defer { _ = server.stop() }
        let wrong = Provider(secret: String(repeating: "other-", count: 7), lifetime: 60)
        await #expect { _ = try await RoomSession.connect(roomURL(server), token: wrong.token()) } throws: { error in
            if case .refused(code: 4401, _) = error as? TandemError { true } else { false }
        }
    }
}
