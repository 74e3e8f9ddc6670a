/// `https://` and `wss://` through lws' OpenSSL (docs/security.md, "TLS").
public struct TLSSettings: Sendable, Hashable {
    public init() {}
}
