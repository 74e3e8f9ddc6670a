import TandemStorage

/// Everything `tandem` can be told at start, with the embedded defaults.
public struct ServerConfig: Sendable, Hashable {
    /// The address to listen on. 127.0.0.1 keeps a laptop's server private;
    /// the container passes 0.0.0.0.
    public var host = "127.0.0.1"
    /// The TCP port for HTTP and WebSocket alike; 0 picks a free one (the start line says which).
    public var port = 8080
    /// The folder of the static web client.
    public var webRoot = "web"
    /// The SQLite file where rooms, committed states and the commit log are
    /// kept (its folder is created); `:memory:` keeps nothing across restarts.
    public var dataPath = "./data/tandem.db"
    /// `normal`: survives a killed process; `full`: an fsync per write, survives power loss.
    public var durability: Durability = .normal
    /// The largest WebSocket message accepted, in bytes. 4 KiB is ten times the
    /// largest legitimate message (a `set` with a long control id); anything
    /// bigger is abuse or a bug, and closes the connection with 1009.
    public var maxFrame = 4096
    /// Seconds a connection may stay silent (no message, no pong) before it is
    /// dropped; it is pinged after a third of that.
    public var idleTimeout: Double = 60
    /// Seconds a connection may stay unwritable with frames waiting before it
    /// is closed with 4008. Until then it costs only its conflated pending set.
    public var slowTimeout: Double = 30
    /// How much is logged.
    public var logLevel: LogLevel = .info
    /// How log lines are written: `text` or `json` (one object per line).
    public var logFormat: LogFormat = .text
    /// The lws event loop: `poll` (lws' own) or `uv` (libuv, epoll).
    public var eventLoop: EventLoop = .uv
    /// How a fan-out round sends its frames on plain TCP: in io_uring batches
    /// (falling back to `send` where io_uring is not available) or one `send` each.
    public var sends: Sends = .ioUring
    /// Who serves a WebSocket connection on plain TCP once upgraded: the
    /// server's own sockets (`own`: its epoll set, frame reader and sends;
    /// Transport/) or lws throughout (`lws`). Under TLS always lws.
    public var sockets: Sockets = .own
    /// A folder of room files (`*.json`, one room each, read in name order), served after the demo room.
    public var roomsDir: String?
    /// How much of each room's commit log to keep (`--history-keep`); `nil` keeps everything.
    public var historyKeep: HistoryKeep? = ServerConfig.defaultHistoryKeep
    /// The default retention: each room's newest million commits (about 60 MB
    /// of file a room, measured in docs/storage.md); `--history-keep forever` keeps everything.
    public static let defaultHistoryKeep = HistoryKeep.count(1_000_000)
    /// People announced one by one in a room (`RoomLimits.presence`); past it newcomers join quietly.
    public var presenceLimit = 64
    /// The path of the echo endpoint for the Autobahn|Testsuite (`--echo-path`,
    /// Server+Echo.swift); `nil`, the default, serves none.
    public var echoPath: String?
    /// Tokens, roles, origins and hosts (Settings/AccessSettings.swift).
    public var access = AccessSettings()
    /// Connection, handshake, body and room limits (Settings/LimitSettings.swift).
    public var limits = LimitSettings()
    /// Certificate and key for https:// and wss:// (Settings/TLSSettings.swift); `nil` serves plain http.
    public var tls: TLSSettings?
    /// Cluster mode (Settings/ClusterSettings.swift): `nil` serves alone, with SQLite.
    public var cluster: ClusterSettings?
    /// The OSC bridge (Settings/OSCSettings.swift); empty by default: none.
    public var osc = OSCSettings()

    public init() {}

    /// Retention of the commit log, per room.
    public enum HistoryKeep: Sendable, Hashable {
        /// The newest N commits.
        case count(Int)
        /// Commits younger than this many seconds.
        case age(seconds: Int64)

        /// `N` (commits) or `N` followed by `d`, `h`, `m` or `s` (an age); `nil` if it is neither.
        public init?(parsing text: String) {
            let units: [Character: Int64] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
            if let last = text.last, let unit = units[last] {
                guard let n = Int64(text.dropLast()), n >= 1, n <= Int64.max / 1000 / unit else { return nil }
                self = .age(seconds: n * unit)
            } else {
                guard let n = Int(text), n >= 1 else { return nil }
                self = .count(n)
            }
        }
    }

    /// The event loops Debian's lws offers.
    public enum EventLoop: String, Sendable, Hashable, CaseIterable {
        case poll, uv
    }

    public enum Sends: String, Sendable, Hashable, CaseIterable {
        case ioUring = "io_uring"
        case send
    }

    public enum Sockets: String, Sendable, Hashable, CaseIterable {
        case own
        case lws
    }
}

/// Log levels, most to least severe.
public enum LogLevel: Int, Sendable, Hashable, CaseIterable, Comparable {
    case error, warn, info, debug

    public init?(name: String) {
        switch name {
        case "error": self = .error
        case "warn", "warning": self = .warn
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .debug: "debug"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
