import TandemOSCLink
import TandemServer

extension Flags {
    static let oscUsage = """
      --osc-send URL       send every commit of every room as OSC to udp://HOST:PORT
                           (repeatable; docs/osc.md), and a dump of each room at start
      --osc-previews       send live drags too, at most 60 updates a second per thumb
      --osc-listen URL     take OSC writes on udp://ADDR:PORT (an IP address; port 0 picks
                           one); senders on loopback only unless --osc-allow
      --osc-allow CIDR     let senders in CIDR write over OSC too (repeatable; 10.0.0.0/8,
                           192.168.1.7, fd00::/8). OSC has no authentication: docs/security.md

    """

    static let oscSwitches: Set<String> = ["osc-previews"]

    /// Sets `--osc-previews`; `false` if `name` is not an OSC switch.
    static func parseOSCSwitch(_ name: String, into config: inout ServerConfig) -> Bool {
        guard name == "osc-previews" else { return false }
        config.osc.previews = true
        return true
    }

    /// Parses `--name value` if it is one of the OSC flags; `false` if it is not.
    static func parseOSC(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "osc-send":
            guard let target = OSCTarget(url: value) else {
                throw Problem(message: "--osc-send must be udp://HOST:PORT (a port from 1 to 65535), not '\(value)'")
            }
            if !config.osc.targets.contains(target) { config.osc.targets.append(target) }
        case "osc-listen":
            guard let listen = OSCSettings.listenAddress(url: value) else {
                throw Problem(message: "--osc-listen must be udp://ADDR:PORT with ADDR an IP address (udp://127.0.0.1:9001), not '\(value)'")
            }
            config.osc.listen = listen
        case "osc-allow":
            guard let range = IPRange(value) else {
                throw Problem(message: "--osc-allow must be an address or CIDR range (10.0.0.0/8, 192.168.1.7, fd00::/8), not '\(value)'")
            }
            config.osc.allow.append(range)
        default:
            return false
        }
        return true
    }

    /// After every flag: previews need somewhere to go; listening beyond loopback needs an allow list.
    static func checkOSC(_ config: ServerConfig) throws(Problem) {
        let osc = config.osc
        if osc.previews, osc.targets.isEmpty { throw Problem(message: "--osc-previews needs --osc-send URL") }
        if !osc.allow.isEmpty, osc.listen == nil { throw Problem(message: "--osc-allow needs --osc-listen URL") }
        if let listen = osc.listen, !listen.ip.isLoopback, osc.allow.isEmpty {
            throw Problem(message: "--osc-listen on \(listen.ip) needs --osc-allow CIDR: OSC has no authentication, so say which senders may write (docs/security.md)")
        }
    }
}
