/// Who may connect and what they may do: tokens (docs/security.md, "Tokens and
/// roles") and the origins and hosts a request may come from ("Origins and hosts").
public struct AccessSettings: Sendable, Hashable {
    public init() {}
}
