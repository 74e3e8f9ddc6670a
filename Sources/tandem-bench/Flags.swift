#if canImport(Glibc)
import Glibc
#endif
import TandemBench

/// The command line of `tandem-bench`.
struct Flags {
    var url = ""
    var host = ""
    var port = 0
    var room = ""
    var clients = 100
    var draggers = 4
    var hz = 60.0
    var duration = 10.0
    var warmup = 2.0
    var ramp = 1000.0
    var json: String?
    var svg: String?
    /// `--pid` (repeatable) and `--pids a,b,c`, in order: the i-th is the server of the
    /// i-th URL (`--url`, then each `--also-url`); any beyond the URLs (Redis, say) are
    /// measured too. The report's serverCPU is their sum.
    var pids: [Int] = []
    /// The first pid: the one server of a single-server run (its RSS for `--idle`).
    var pid: Int? { pids.first }
    /// `--also-url`, as given: more servers (a cluster's nodes) for the same room path.
    var alsoURLs: [String] = []
    /// Every server of the run: `--url`'s first, then each `--also-url`'s. A room's
    /// clients go round-robin over them (`ServerSpread`).
    var servers: [BenchURL] = []
    var rooms = 1
    var slow = 0.0
    var idle = false
    var eventLoop = "uv"
    /// `wss://`: TLS to the server, for the WebSocket and the admin API calls alike.
    var tls = false
    /// Accept any server certificate (`--insecure`): for tests against a self-signed one.
    var insecure = false
    /// The rooms the clients go to: ID, or ID-1 ... ID-R.
    var roomIDs: [String] = []
    /// The JWT for a server with auth on: `?token=` on every WebSocket,
    /// `Authorization: Bearer` on every API call. From `--token`,
    /// `--token-file` or `TANDEM_TOKEN`, in that order of precedence.
    var token: String?
    /// The query of `--url`, if any (`name=…`): every WebSocket carries it, the token after it.
    var query = ""

    static let usage = """
    usage: tandem-bench --url ws://HOST:PORT/rooms/ID [options]

      --url URL        the room to load (required), ws://HOST:PORT/rooms/ID, or
                       wss://HOST:PORT/rooms/ID for a server with TLS (its API over https)
      --insecure       with wss://, accept any certificate (self-signed, expired, another
                       name): for test servers only, never across a network you do not own
      --clients N      connections to open (default 100)
      --draggers K     clients per room that drag, each its own thumb (default 4): the
                       room's sliders and colour channels when it has K of them, otherwise
                       the bench creates room ID of K sliders through POST /api/rooms
                       (replacing only a room titled tandem-bench)
      --rooms R        spread the clients over rooms ID-1 ... ID-R, each created as a
                       bench room of K sliders (default 1: room ID itself)
      --hz R           moves per second per dragger (default 60)
      --duration S     measured seconds (default 10)
      --warmup S       seconds before measuring (default 2)
      --ramp C         connections opened per second (default 1000)
      --slow P         percent of receivers that read slowly: 10 ms in every 250 ms
                       (their latency is reported apart from the fast receivers')
      --idle           memory mode: open --clients idle connections and report the
                       server's RSS per connection (needs --pid)
      --token JWT      for a server with auth on: the token every WebSocket (?token=) and
                       API call (Authorization: Bearer) carries; it must cover the rooms
                       with role editor, or admin when the bench creates rooms
      --token-file F   the token from file F (one trailing newline dropped): out of `ps`
                       (either flag wins over the environment variable TANDEM_TOKEN)
      --event-loop L   uv (epoll, default) or poll
      --json FILE      write the report as JSON
      --svg FILE       write latency over time and the histogram as SVG
      --also-url URL   another server for the same room path, ws://HOST:PORT (a cluster's
                       node; repeatable): each room's clients, draggers included, go
                       round-robin over --url and these, in order; the report adds per
                       server its clients, the updates delivered to them and their latency
      --pid PID        the server's pid: its CPU from /proc/PID/stat. Repeatable, or
                       --pids PID,PID,...: the i-th pid is the i-th URL's server (--url
                       first); CPU per pid, summed as the server CPU, and per server its
                       CPU per update delivered to its own clients; pids past the URLs
                       (Redis, say) are measured and summed too
      --help           this text

    Exit status: 0 passed, 1 failed (an illegal state, a final state differing from the
    server's, connect errors or dropped connections, generator over 80 % CPU, the server
    refusing the token: close 4401/4403, HTTP 401/403, a viewer's welcome), 2 usage.
    """

    struct UsageError: Error { var message: String }

    /// Parses `arguments` (without the program name); `nil` for `--help`.
    /// `environmentToken` is `TANDEM_TOKEN`'s value, if set.
    static func parse(_ arguments: [String], environmentToken: String? = nil) throws(UsageError) -> Flags? {
        var flags = Flags()
        var tokenFile: String?
        var i = 0
        func value(_ name: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(message: "\(name) needs a value") }
            return arguments[i]
        }
        func int(_ name: String, min: Int) throws(UsageError) -> Int {
            let text = try value(name)
            guard let n = Int(text), n >= min else { throw UsageError(message: "\(name): '\(text)' is not a whole number >= \(min)") }
            return n
        }
        func double(_ name: String, above: Double, orEqual: Bool = false) throws(UsageError) -> Double {
            let text = try value(name)
            guard let x = Double(text), x.isFinite, orEqual ? x >= above : x > above else {
                throw UsageError(message: "\(name): '\(text)' is not a number \(orEqual ? ">=" : ">") \(above)")
            }
            return x
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--help", "-h": return nil
            case "--url": flags.url = try value(arg)
            case "--clients": flags.clients = try int(arg, min: 1)
            case "--draggers": flags.draggers = try int(arg, min: 0)
            case "--hz": flags.hz = try double(arg, above: 0)
            case "--duration": flags.duration = try double(arg, above: 0)
            case "--warmup": flags.warmup = try double(arg, above: 0, orEqual: true)
            case "--ramp": flags.ramp = try double(arg, above: 0)
            case "--json": flags.json = try value(arg)
            case "--svg": flags.svg = try value(arg)
            case "--pid": flags.pids.append(try int(arg, min: 1))
            case "--pids":
                let text = try value(arg)
                guard let pids = ServerSpread.pids(text[...]) else { throw UsageError(message: "--pids: '\(text)' is not a comma-separated list of pids") }
                flags.pids += pids
            case "--also-url": flags.alsoURLs.append(try value(arg))
            case "--rooms": flags.rooms = try int(arg, min: 1)
            case "--slow":
                flags.slow = try double(arg, above: 0, orEqual: true)
                guard flags.slow <= 100 else { throw UsageError(message: "--slow: a percentage from 0 to 100") }
            case "--idle": flags.idle = true
            case "--insecure": flags.insecure = true
            case "--token": flags.token = try value(arg)
            case "--token-file": tokenFile = try value(arg)
            case "--event-loop":
                flags.eventLoop = try value(arg)
                guard ["uv", "poll"].contains(flags.eventLoop) else { throw UsageError(message: "--event-loop: uv or poll, not '\(flags.eventLoop)'") }
            default: throw UsageError(message: "unknown flag '\(arg)'")
            }
            i += 1
        }
        guard !flags.url.isEmpty else { throw UsageError(message: "--url is required") }
        if let tokenFile {
            guard flags.token == nil else { throw UsageError(message: "--token and --token-file: give one of them") }
            flags.token = try readToken(tokenFile)
        }
        if flags.token == nil, let environmentToken, !environmentToken.isEmpty { flags.token = environmentToken }
        if let token = flags.token {
            guard !token.isEmpty else { throw UsageError(message: "--token: the token is empty") }
            // It goes into a header line and a URL: a line break would split the request.
            guard !token.utf8.contains(where: { $0 < 0x21 || $0 == 0x7f }) else {
                throw UsageError(message: "--token: the token contains spaces or control characters")
            }
        }
        if flags.idle {
            guard flags.pid != nil else { throw UsageError(message: "--idle needs --pid (the server's RSS is what it measures)") }
            flags.draggers = 0
        }
        guard flags.clients >= flags.rooms else { throw UsageError(message: "--clients must be at least --rooms") }
        guard flags.draggers * flags.rooms <= flags.clients else { throw UsageError(message: "--draggers times --rooms must not exceed --clients") }
        // ws://HOST:PORT/rooms/ID or wss://HOST:PORT/rooms/ID
        let scheme: String
        if flags.url.hasPrefix("wss://") {
            scheme = "wss://"
            flags.tls = true
        } else if flags.url.hasPrefix("ws://") {
            scheme = "ws://"
        } else {
            throw UsageError(message: "--url must start with ws:// or wss://")
        }
        guard flags.tls || !flags.insecure else { throw UsageError(message: "--insecure is for wss:// URLs (it relaxes the TLS certificate check)") }
        let rest = flags.url.dropFirst(scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { throw UsageError(message: "--url needs a path /rooms/ID") }
        let authority = rest[..<slash]
        var path = rest[slash...]
        if let mark = path.firstIndex(of: "?") {
            flags.query = String(path[path.index(after: mark)...])
            path = path[..<mark]
            // One place for the token, so that the API calls carry the same one.
            guard !flags.query.split(separator: "&").contains(where: { $0.hasPrefix("token=") }) else {
                throw UsageError(message: "--url: give the token with --token, --token-file or TANDEM_TOKEN, not in the URL")
            }
        }
        guard path.hasPrefix("/rooms/"), path.count > "/rooms/".count, !path.dropFirst("/rooms/".count).contains("/") else {
            throw UsageError(message: "--url path must be /rooms/ID")
        }
        flags.room = String(path.dropFirst("/rooms/".count))
        if flags.rooms > 1 {
            flags.roomIDs = (1...flags.rooms).map { "\(flags.room)-\($0)" }
        } else {
            flags.roomIDs = [flags.room]
        }
        if let colon = authority.lastIndex(of: ":") {
            flags.host = String(authority[..<colon])
            guard let port = Int(authority[authority.index(after: colon)...]), port > 0, port < 65536 else {
                throw UsageError(message: "--url has a bad port")
            }
            flags.port = port
        } else {
            flags.host = String(authority)
            flags.port = flags.tls ? 443 : 80
        }
        guard !flags.host.isEmpty else { throw UsageError(message: "--url needs a host") }
        flags.servers = [BenchURL(tls: flags.tls, host: flags.host, port: flags.port, path: String(path))]
        for text in flags.alsoURLs {
            let other: BenchURL
            switch BenchURL.parse(text) {
            case let .success(parsed): other = parsed
            case let .failure(error): throw UsageError(message: "--also-url \(error.message)")
            }
            guard other.tls == flags.tls else { throw UsageError(message: "--also-url '\(text)': the same scheme as --url (ws:// or wss://)") }
            guard other.path.isEmpty || other.path == path else {
                throw UsageError(message: "--also-url '\(text)': every server gets --url's room path \(path); give ws://HOST:PORT")
            }
            flags.servers.append(other)
        }
        if flags.idle, flags.servers.count > 1 { throw UsageError(message: "--idle measures one server: no --also-url") }
        return flags
    }

    /// The token in file `path`, one trailing newline (or CRLF) dropped.
    private static func readToken(_ path: String) throws(UsageError) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw UsageError(message: "--token-file \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw UsageError(message: "--token-file \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            guard bytes.count <= 65536 else { throw UsageError(message: "--token-file \(path): over 64 KiB, not a token") }
        }
        if bytes.last == 10 { bytes.removeLast() }
        if bytes.last == 13 { bytes.removeLast() }
        guard !bytes.isEmpty else { throw UsageError(message: "--token-file \(path): the file is empty") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
