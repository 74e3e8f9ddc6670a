import TandemServer

extension Flags {
    /// The usage lines of the limit flags.
    static let limitUsage = connectionUsage + roomUsage

    static let connectionUsage = """
      --max-connections N  client sockets (HTTP and WebSocket) held at once; past it new
                           ones get 503, or close 1013 after the handshake (default: the
                           descriptor limit less a tenth (at least 64) and 64 more)
      --max-connections-per-ip N
                           sockets held at once per client address, loopback exempt;
                           0 turns it off (default 256)
      --header-timeout SECS
                           time a client has to send a whole request or handshake (default 5)

    """

    static let roomUsage = ""
        + "  --max-rooms N        rooms served at most; past it creating a room is refused\n"
        + "                       (409 too_many_rooms), replacing one still works (default 1000)\n"
        + "  --body-timeout SECS  a request body must arrive whole this soon after its headers,\n"
        + "                       else 408 and close (default 10)\n"
        + "  --http-rate N        HTTP API writes and costly reads per token (or address) a second,\n"
        + "                       twice as many at once; past it 429 rate_limited (default 300,\n"
        + "                       a WebSocket member's rate; 0: no limit)\n"

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
        case "max-rooms":
            guard let n = Int(value), (1...1_000_000).contains(n) else {
                throw Problem(message: "--max-rooms must be a number of rooms from 1 to 1000000, not '\(value)'")
            }
            config.limits.maxRooms = n
        case "body-timeout":
            config.limits.bodyTimeout = try seconds(value, name, max: 3600)
        case "http-rate":
            guard let n = Int(value), (0...1_000_000).contains(n) else {
                throw Problem(message: "--http-rate must be a number of requests a second from 0 (no limit) to 1000000, not '\(value)'")
            }
            config.limits.httpRate = Double(n)
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
