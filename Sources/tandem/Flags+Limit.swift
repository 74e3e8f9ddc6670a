import TandemServer

extension Flags {
    /// The usage lines of the limit flags.
    static let limitUsage = """
      --max-connections N  client sockets (HTTP and WebSocket) held at once; past it new
                           ones get 503, or close 1013 after the handshake (default: the
                           descriptor limit less a tenth (at least 64) and 64 more)
      --max-connections-per-ip N
                           sockets held at once per client address, loopback exempt;
                           0 turns it off (default 256)
      --header-timeout SECS
                           time a client has to send a whole request or handshake (default 5)

    """

    /// The limit flags that take no value.
    static let limitSwitches: Set<String> = []

    /// Parses `--name value` if it is one of the limit flags; `false` if it is not.
    static func parseLimit(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "max-connections":
            guard let n = Int(value), (1...1_000_000).contains(n) else {
                throw Problem(message: "--max-connections must be a number of connections from 1 to 1000000, not '\(value)'")
            }
            config.limits.maxConnections = n
        case "max-connections-per-ip":
            guard let n = Int(value), (0...1_000_000).contains(n) else {
                throw Problem(message: "--max-connections-per-ip must be a number of connections from 0 (no limit) to 1000000, not '\(value)'")
            }
            config.limits.maxConnectionsPerAddress = n
        case "header-timeout":
            config.limits.headerTimeout = Int(try seconds(value, name, max: 300))
        default: return false
        }
        return true
    }

    /// Sets the switch `--name` if it is one of the limit switches; `false` if it is not.
    static func parseLimitSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }
}
