import TandemServer

extension Flags {
    /// The usage lines of the tls flags.
    static let tlsUsage = """
      --tls-cert PEM       serve https:// and wss:// with this certificate (a PEM chain:
                           the certificate, then its intermediates); needs --tls-key
      --tls-key PEM        the certificate's private key (PEM, unencrypted); needs --tls-cert
                           Both are read at start: a renewed certificate takes a restart.

    """

    /// The tls flags that take no value.
    static let tlsSwitches: Set<String> = []

    /// Parses `--name value` if it is one of the tls flags; `false` if it is not.
    /// One of the pair alone is caught by `checkTLS` once every flag is read.
    static func parseTLS(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "tls-cert":
            guard !value.isEmpty else { throw Problem(message: "--tls-cert must not be empty") }
            var tls = config.tls ?? TLSSettings(certificatePath: "", privateKeyPath: "")
            tls.certificatePath = value
            config.tls = tls
        case "tls-key":
            guard !value.isEmpty else { throw Problem(message: "--tls-key must not be empty") }
            var tls = config.tls ?? TLSSettings(certificatePath: "", privateKeyPath: "")
            tls.privateKeyPath = value
            config.tls = tls
        default: return false
        }
        return true
    }

    /// Sets the switch `--name` if it is one of the tls switches; `false` if it is not.
    static func parseTLSSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }

    /// A certificate without its key (or the reverse) cannot serve TLS, and
    /// quietly serving plain http instead would be worse: both or neither.
    static func checkTLS(_ config: ServerConfig) throws(Problem) {
        guard let tls = config.tls else { return }
        if tls.privateKeyPath.isEmpty { throw Problem(message: "--tls-cert needs --tls-key (the certificate's private key)") }
        if tls.certificatePath.isEmpty { throw Problem(message: "--tls-key needs --tls-cert (the certificate it belongs to)") }
    }
}
