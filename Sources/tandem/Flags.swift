import TandemServer
import TandemStorage

/// The command line of `tandem`: flags in, a `ServerConfig` out, or a usage error.
enum Flags {
    static let usage = """
    usage: tandem [flags]

    Serves Tandem rooms over WebSocket (ws://HOST:PORT/rooms/ROOM, subprotocol
    tandem.v1) and HTTP (the web client, /healthz, /metrics, /api) on one port.

    flags (each also as --flag=value):
      --host ADDR          address to listen on (default 127.0.0.1; 0.0.0.0 for all)
      --port N             TCP port, 0 picks a free one (default 8080)
      --web DIR            folder of the static web client (default web)
      --data PATH          SQLite file for rooms, states and history, folder created
                           (default ./data/tandem.db); :memory: keeps nothing
      --durability MODE    normal (survives a killed process) or full (fsync per
                           write, survives power loss) (default normal)
      --max-frame BYTES    largest WebSocket message accepted; bigger closes 1009 (default 4096)
      --idle-timeout SECS  drop a connection silent this long, pinging it after a third (default 60)
      --slow-timeout SECS  close with 4008 a connection unwritable this long (default 30)
      --presence-limit N   people announced one by one per room (default 64); later
                           arrivals join quietly, counted in "present"
      --event-loop NAME    uv (libuv, epoll) or poll (lws' own) (default uv)
      --sends HOW          io_uring (a fan-out round's frames in batches, send where
                           io_uring is unavailable) or send (one call each) (default io_uring)
      --sockets WHO        own (an upgraded plain connection is served by the server's
                           own epoll set, frame reader and sends) or lws (default own)
      --log-level LEVEL    error, warn, info or debug (default info)
      --log-format FORMAT  text (LEVEL message) or json (one object per line: time,
                           level, message) (default text)
      --rooms DIR          serve the rooms of DIR/*.json (one room each) after the demo room
      --history-keep KEEP  keep the last N commits per room (N) or those younger than an
                           age (30d, 12h, 90m, 45s), pruned in bounded passes every 10 s;
                           0 or forever keeps everything (default 1000000)
      --echo-path PATH     serve a WebSocket echo endpoint at PATH (for the Autobahn|Testsuite,
                           `make autobahn`); off by default

    """ + "\naccess:\n" + accessUsage + "\nlimits:\n" + limitUsage + "\nTLS:\n" + tlsUsage + "\ncluster:\n" + clusterUsage + "\nOSC:\n" + oscUsage
        + "\n  --help               this text\n\n"

    /// A flag that could not be used, with why.
    struct Problem: Error {
        var message: String
    }

    /// The config for `arguments` (without the program name); `nil` means `--help` was asked for.
    static func parse(_ arguments: [String]) throws(Problem) -> ServerConfig? {
        var config = ServerConfig()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let (name, inline) = try split(argument)
            if name == "help" { return nil }
            if switches.contains(name) {
                guard inline == nil else { throw Problem(message: "--\(name) takes no value") }
                try parseSwitch(name, into: &config)
                continue
            }
            guard let value = inline ?? rest.popFirst() else { throw Problem(message: "--\(name) needs a value") }
            switch name {
            case "host":
                guard !value.isEmpty else { throw Problem(message: "--host must not be empty") }
                config.host = value
            case "port":
                guard let port = Int(value), (0...65535).contains(port) else {
                    throw Problem(message: "--port must be a number from 0 to 65535, not '\(value)'")
                }
                config.port = port
            case "web":
                config.webRoot = value
            case "data":
                guard !value.isEmpty else { throw Problem(message: "--data must not be empty (use :memory: to keep nothing)") }
                config.dataPath = value
            case "durability":
                guard let mode = Durability(rawValue: value) else {
                    throw Problem(message: "--durability must be normal or full, not '\(value)'")
                }
                config.durability = mode
            case "max-frame":
                guard let bytes = Int(value), (64...1_048_576).contains(bytes) else {
                    throw Problem(message: "--max-frame must be a number of bytes from 64 to 1048576, not '\(value)'")
                }
                config.maxFrame = bytes
            case "idle-timeout":
                config.idleTimeout = try seconds(value, name, max: 65535)
            case "slow-timeout":
                config.slowTimeout = try seconds(value, name, max: 86400)
            case "presence-limit":
                guard let n = Int(value), (0...100_000).contains(n) else {
                    throw Problem(message: "--presence-limit must be a number of people from 0 to 100000, not '\(value)'")
                }
                config.presenceLimit = n
            case "event-loop":
                guard let loop = ServerConfig.EventLoop(rawValue: value) else {
                    throw Problem(message: "--event-loop must be poll or uv, not '\(value)'")
                }
                config.eventLoop = loop
            case "sends":
                guard let sends = ServerConfig.Sends(rawValue: value) else {
                    throw Problem(message: "--sends must be io_uring or send, not '\(value)'")
                }
                config.sends = sends
            case "sockets":
                guard let sockets = ServerConfig.Sockets(rawValue: value) else {
                    throw Problem(message: "--sockets must be own or lws, not '\(value)'")
                }
                config.sockets = sockets
            case "log-level":
                guard let level = LogLevel(name: value) else {
                    throw Problem(message: "--log-level must be error, warn, info or debug, not '\(value)'")
                }
                config.logLevel = level
            case "log-format":
                guard let format = LogFormat(rawValue: value) else {
                    throw Problem(message: "--log-format must be text or json, not '\(value)'")
                }
                config.logFormat = format
            case "rooms":
                guard !value.isEmpty else { throw Problem(message: "--rooms must not be empty") }
                config.roomsDir = value
            case "history-keep":
                if value == "0" || value == "forever" {
                    config.historyKeep = nil
                    break
                }
                guard let keep = ServerConfig.HistoryKeep(parsing: value) else {
                    throw Problem(message: "--history-keep must be a number of commits (100), an age (30d, 12h, 90m, 45s) or 0 / forever (keep everything), not '\(value)'")
                }
                config.historyKeep = keep
            case "echo-path":
                guard value.hasPrefix("/"), !value.hasPrefix("/rooms/"), value.count <= 200 else {
                    throw Problem(message: "--echo-path must be a path starting with / outside /rooms/, not '\(value)'")
                }
                config.echoPath = value
            default:
                // Each concern parses its own flags in its own file (Flags+Access.swift, …).
                if try parseAccess(name, value, into: &config) { continue }
                if try parseLimit(name, value, into: &config) { continue }
                if try parseTLS(name, value, into: &config) { continue }
                if try parseCluster(name, value, into: &config) { continue }
                if try parseOSC(name, value, into: &config) { continue }
                throw Problem(message: "unknown flag --\(name)")
            }
        }
        try checkTLS(config)
        try checkCluster(&config)
        try checkOSC(config)
        return config
    }

    /// `--name` or `--name=value` as the name and the inline value, if any.
    static func split(_ argument: String) throws(Problem) -> (name: String, inline: String?) {
        guard argument.hasPrefix("--") else { throw Problem(message: "unexpected argument '\(argument)'") }
        let flag = argument.dropFirst(2)
        guard let eq = flag.firstIndex(of: "=") else { return (String(flag), nil) }
        return (String(flag[..<eq]), String(flag[flag.index(after: eq)...]))
    }

    /// Flags that take no value.
    static let switches: Set<String> = accessSwitches.union(limitSwitches).union(tlsSwitches).union(oscSwitches)

    /// Sets the switch `name` (one of `switches`).
    private static func parseSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) {
        if try parseAccessSwitch(name, into: &config) { return }
        if try parseLimitSwitch(name, into: &config) { return }
        if try parseTLSSwitch(name, into: &config) { return }
        if parseOSCSwitch(name, into: &config) { return }
        throw Problem(message: "unknown flag --\(name)")
    }

    static func seconds(_ value: String, _ name: String, max: Double) throws(Problem) -> Double {
        guard let seconds = Double(value), seconds.isFinite, seconds >= 1, seconds <= max else {
            throw Problem(message: "--\(name) must be a number of seconds from 1 to \(Int(max)), not '\(value)'")
        }
        return seconds
    }
}
