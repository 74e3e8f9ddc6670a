import TandemServer

extension Flags {
    /// The usage lines of the access flags.
    static let accessUsage = ""
        + "  --allow-origin ORIGIN\n"
        + "                       also accept WebSockets and POST/PUT/DELETE from pages of ORIGIN\n"
        + "                       (scheme://host[:port]; repeatable; * allows any, with a warning)\n"
        + "  --public-host NAME   a name (NAME or NAME:PORT) clients reach this server by; the Host\n"
        + "                       header must be one of them or a loopback name (repeatable)\n"
        + "  --open-admin         with auth off, let peers other than loopback create, replace and\n"
        + "                       delete rooms (default: loopback only)\n"

    /// The access flags that take no value.
    static let accessSwitches: Set<String> = ["open-admin"]

    /// Parses `--name value` if it is one of the access flags; `false` if it is not.
    static func parseAccess(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "allow-origin":
            guard value == "*" || WebOrigin(parsing: value) != nil else {
                throw Problem(message: "--allow-origin must be an origin such as https://example.com:8443 (scheme, host, optional port) or *, not '\(value)'")
            }
            config.access.allowedOrigins.append(value)
            return true
        case "public-host":
            guard WebOrigin(parsing: "http://" + value) != nil, !value.contains("/") else {
                throw Problem(message: "--public-host must be a host name, optionally with a port (example.com, example.com:8080), not '\(value)'")
            }
            config.access.publicHosts.append(value)
            return true
        default: return false
        }
    }

    /// Sets the switch `--name` if it is one of the access switches; `false` if it is not.
    static func parseAccessSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "open-admin":
            config.access.openAdmin = true
            return true
        default: return false
        }
    }
}
