import TandemServer

extension Flags {
    /// The usage lines of the limit flags.
    static let limitUsage = ""
        + "  --max-rooms N        rooms served at most; past it creating a room is refused\n"
        + "                       (409 too_many_rooms), replacing one still works (default 1000)\n"
        + "  --body-timeout SECS  a request body must arrive whole this soon after its headers,\n"
        + "                       else 408 and close (default 10)\n"

    /// The limit flags that take no value.
    static let limitSwitches: Set<String> = []

    /// Parses `--name value` if it is one of the limit flags; `false` if it is not.
    static func parseLimit(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "max-rooms":
            guard let n = Int(value), (1...1_000_000).contains(n) else {
                throw Problem(message: "--max-rooms must be a number of rooms from 1 to 1000000, not '\(value)'")
            }
            config.limits.maxRooms = n
            return true
        case "body-timeout":
            config.limits.bodyTimeout = try seconds(value, name, max: 3600)
            return true
        default: return false
        }
    }

    /// Sets the switch `--name` if it is one of the limit switches; `false` if it is not.
    static func parseLimitSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }
}
