/// Who may connect and what they may do: tokens (docs/security.md, "Tokens and
/// roles") and the origins and hosts a request may come from ("Origins and hosts").
public struct AccessSettings: Sendable, Hashable {
    /// The HS256 secrets tokens are checked with: the current one first, then
    /// the previous one while keys rotate. Empty: auth is off.
    public var secrets: [[UInt8]] = []
    /// Where the current and the previous secret are read from (`--auth-secret-file`,
    /// `--auth-previous-secret-file`); the command line reads them into `secrets`.
    public var secretFile: String?
    public var previousSecretFile: String?
    /// Seconds of slack on a token's `exp` and `nbf` (`--auth-leeway`): the
    /// contract's 30 s, smaller only for tests that watch a session expire.
    public var authLeeway: Double = 30
    /// Origins allowed besides the server's own (`--allow-origin`; `*` allows any).
    public var allowedOrigins: [String] = []
    /// The names the `Host` header may carry besides loopback names (`--public-host`).
    public var publicHosts: [String] = []
    /// With auth off, whether the admin API answers peers other than loopback (`--open-admin`).
    public var openAdmin = false

    /// Whether tokens are required.
    public var authEnabled: Bool { !secrets.isEmpty }

    public init() {}
}
