import TandemServer

extension Flags {
    /// The usage lines of the tls flags.
    static let tlsUsage = ""

    /// The tls flags that take no value.
    static let tlsSwitches: Set<String> = []

    /// Parses `--name value` if it is one of the tls flags; `false` if it is not.
    static func parseTLS(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }

    /// Sets the switch `--name` if it is one of the tls switches; `false` if it is not.
    static func parseTLSSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }
}
