/// `https://` and `wss://` through lws' OpenSSL (docs/security.md, "TLS").
///
/// Both files are read once, at start: a renewed certificate takes a restart.
public struct TLSSettings: Sendable, Hashable {
    /// PEM: the server's certificate, followed by any intermediate certificates
    /// (a full chain, as Let's Encrypt's `fullchain.pem`).
    public var certificatePath: String
    /// PEM: the certificate's private key, unencrypted (a passphrase would need a person at every start).
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// The flags that name the files, for messages that must say which one was wrong.
    public static let certificateFlag = "--tls-cert"
    public static let privateKeyFlag = "--tls-key"
}

extension ServerConfig {
    /// `https` when TLS is on, `http` otherwise: the scheme of the start line and of the
    /// server's own origin (a same-origin check compares it with a request's `Origin`).
    public var httpScheme: String { tls == nil ? "http" : "https" }
}
