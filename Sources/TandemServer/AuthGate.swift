import TandemAuth
import TandemCore
import TandemStorage

/// The server's side of tokens while auth is on: the verifier over the
/// configured secrets, the wall clock tokens are judged by, and a limit on the
/// log lines refused tokens make (a stranger can send thousands a second).
final class AuthGate {
    let verifier: TokenVerifier
    /// At most this many refusals are logged per second; the rest are counted
    /// (always, in `tandem_auth_failures_total`) and summed up in the next line.
    static let logLinesPerSecond = 10
    private var window = Moment.zero
    private var logged = 0
    private var suppressed = 0

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

    /// The line to log for a refusal at `now`, or `nil` while this second's lines are used up.
    func logLine(_ text: String, at now: Moment) -> String? {
        if now.seconds(since: window) >= 1 {
            window = now
            logged = 0
        }
        guard logged < Self.logLinesPerSecond else {
            suppressed += 1
            return nil
        }
        logged += 1
        defer { suppressed = 0 }
        return suppressed > 0 ? "\(text) (and \(suppressed) more refused tokens not logged)" : text
    }
}
