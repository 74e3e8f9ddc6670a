import TandemAuth
import TandemCore
import TandemStorage

/// The server's side of tokens while auth is on: the verifier over the
/// configured secrets and the wall clock tokens are judged by.
final class AuthGate {
    let verifier: TokenVerifier

    init(settings: AccessSettings) {
        verifier = TokenVerifier(secrets: settings.secrets, leeway: settings.authLeeway)
    }

    /// Now, in seconds since 1970: token times are wall-clock times.
    var wallNow: Double { Double(WallClock.milliseconds()) / 1000 }

    /// `token` checked now.
    func verify(_ token: String?) throws(TokenFailure) -> TokenVerifier.Verified {
        try verifier.verify(token, now: wallNow)
    }

    /// Whether the session of `claims` is past `exp` plus the leeway at `wall` (seconds since 1970).
    func expired(_ claims: Claims, at wall: Double) -> Bool {
        wall >= claims.expires + verifier.leeway
    }
}
