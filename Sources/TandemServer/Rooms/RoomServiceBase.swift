import TandemCore
import TandemOSCLink
import TandemStorage
import TandemWire

/// What both kinds of rooms share (`LocalRooms`, `ReplicatedRooms`): the
/// configuration, the log and metrics, the room table, the way to the
/// connections (`Delivery`), the bridges that follow rooms (`RoomObserver`)
/// and each room's presets as this process knows them. Holds no mode: each
/// kind of rooms is a subclass, chosen once when the server is built.
class RoomServiceBase {
    let config: ServerConfig
    let lines: LogLines
    let metrics: Metrics
    /// The rooms served, by id and in listing order.
    let rooms: RoomTable
    /// Set by the server right after it made the rooms; a test sets a recorder.
    weak var delivery: (any Delivery)?
    weak var observer: (any RoomObserver)?
    /// The OSC bridge (`--osc-send`, `--osc-listen`), if any: its writers are members of rooms.
    var osc: OSCBridge?
    /// Each room's presets, by room id, loaded on first use (RoomServiceBase+Presets.swift).
    var presetBooks: [String: PresetBook] = [:]
    /// When each room's list was last sent, the lists waiting, the reads under way (PresetFeed.swift).
    var presetFeed = PresetFeed()

    init(config: ServerConfig, lines: LogLines, metrics: Metrics, rooms: RoomTable) {
        self.config = config
        self.lines = lines
        self.metrics = metrics
        self.rooms = rooms
    }

    var log: Log { lines.log }

    // MARK: what each kind of rooms answers its own way

    /// The presets of room `id` as far as they are read: `nil` when they
    /// cannot be read (yet).
    func presetBook(_ id: String) -> PresetBook? { presetBooks[id] }

    /// Calls `body` with room `id`'s book once it is read (at once when it is), `nil` when it cannot be read.
    func withPresetBook(_ id: String, _ body: @escaping (PresetBook?) -> Void) { body(presetBook(id)) }

    /// Where the timeline and history are read, if they are kept.
    var timelineSource: TimelineSource? { nil }

    /// The rooms' series, where they are kept (docs/series.md).
    var seriesBook: SeriesBook? { nil }

    /// From the book (none kept: no points); a cluster reads Redis for a room it does not own.
    func seriesPoints(room: String, control: String, from: Int64?, to: Int64, limit: Int) throws -> SeriesPoints {
        let tiers = seriesBook?.tiers ?? SeriesTier.standard
        return seriesBook?.points(room: room, control: control, from: from, to: to, limit: limit)
            ?? SeriesPoints(width: tiers[0].width, buckets: [])
    }

    /// Writes what this turn committed, where it is not written with the turn itself.
    func writeCommits() {}

    // MARK: the way out (Delivery)

    func arm(_ connection: Connection, at now: Moment) { delivery?.arm(connection, at: now) }
    func broadcast(in host: RoomHost, at now: Moment) { delivery?.broadcast(in: host, at: now) }
    func close(_ connection: Connection, code: UInt16, reason: String) { delivery?.close(connection, code: code, reason: reason) }
    func requestFlush(_ host: RoomHost, at now: Moment) { delivery?.requestFlush(host, at: now) }
    func completeDeferred(_ exchange: HTTPExchange, _ answer: HTTPAnswer) { delivery?.completeDeferred(exchange, answer) }

    // MARK: the OSC bridge (RoomObserver)

    func oscCommit(_ commit: Commit, in host: RoomHost) { observer?.oscCommit(commit, in: host) }
    func oscPreview(_ entry: GestureEntry, in host: RoomHost, at now: Moment) { observer?.oscPreview(entry, in: host, at: now) }
    func flushOSC() { observer?.flushOSC() }
    func oscCommitted(_ commits: [StoredCommit], room id: String) { observer?.oscCommitted(commits, room: id) }
    func sendDump(_ host: RoomHost) { observer?.sendDump(host) }
    func oscRoomChanged(_ id: String) { observer?.oscRoomChanged(id) }
    func oscHasRoom(for name: String, in id: String, _ osc: OSCBridge, from source: SocketAddress) -> Bool {
        observer?.oscHasRoom(for: name, in: id, osc, from: source) ?? false
    }
    func oscDrop(_ reason: String, _ sentence: String, from source: String) { observer?.oscDrop(reason, sentence, from: source) }

    /// Whether `client` is one of the OSC writers in `host`'s room.
    func isOSCWriter(_ client: ClientID, in host: RoomHost) -> Bool {
        osc?.writers[host.room.id]?.values.contains { $0.client == client } ?? false
    }

    func throttled(_ kind: String, _ level: LogLevel, _ line: @autoclosure () -> String) {
        lines.throttled(kind, level, line)
    }

    func connectionLine(_ kind: String, _ line: @autoclosure () -> String) {
        lines.connectionLine(kind, line)
    }

    /// An HTTP problem body: `{"code","message"}`.
    func problem(_ code: String, _ message: String) -> [UInt8] {
        problemBody(code, message)
    }

    // MARK: answers every kind of rooms gives alike

    /// The welcome, or with `?since=REV` (a whole number from 0 to the room
    /// revision, and no schema change of the room since REV) only the controls
    /// committed after REV (every control for 0) and every control someone
    /// claims (a claim makes no revision), plus `"since":REV`: a control it
    /// leaves out is as the client had it, and claimed by nobody.
    /// Anything else: the full welcome without `since`.
    func encodeWelcome(_ welcome: Welcome, since text: String?) -> [UInt8] {
        guard let text, !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let since = Int(text), since <= welcome.revision,
              rooms.schemaChangedAt[welcome.room].map({ since > $0 }) ?? true
        else { return OutboundEncoder.welcome(welcome) }
        var partial = welcome
        if since > 0 { partial.controls.removeAll { $0.revision <= since && $0.claim == nil } }
        var bytes = OutboundEncoder.welcome(partial)
        bytes.removeLast() // the closing brace
        bytes.append(contentsOf: Array(",\"since\":\(since)}".utf8))
        return bytes
    }

    /// `connection` is welcomed into `host`'s room: its welcome (`?since=`
    /// applied) and the presets list go out from its next writable callback,
    /// its frames start after them, and the log says so (`event`, `line`).
    func sendWelcome(_ welcome: Welcome, to connection: Connection, in host: RoomHost, since: String?,
                     log event: String, _ line: String, at now: Moment) {
        connection.welcomed = true
        connection.offeredMark = host.offered
        connection.welcome = encodeWelcome(welcome, since: since)
        connection.presets = presetsFrame(host.room.id)
        connectionLine(event, line)
        arm(connection, at: now)
    }

    /// Logs a reject through the log's rate limit, by code: a flooding client
    /// earns thousands a second, of `rate_limited` or of any other code
    /// (`tandem_rejects_total{code}` counts every one).
    func logReject(_ reject: Reject) {
        let kind = reject.code == .rateLimited ? "reject-rate-limited" : "reject-\(reject.code.rawValue)"
        throttled(kind, .info, "reject \(reject.to) seq=\(reject.seq) code=\(reject.code.rawValue)\(reject.holder.map { " holder=\($0)" } ?? "")")
    }

    /// A client that keeps flooding past the rate limit for a whole second is
    /// closed with 1008: a flood is a run of rate_limited rejects with no
    /// pause of `floodPause` between two of them, and it is the run's length
    /// that counts, not the number of rejects (a fast client piles up the
    /// burst's worth of rejects in a few milliseconds).
    func noteRateLimited(_ connection: Connection, at now: Moment) {
        if let last = connection.lastRateLimited, now.seconds(since: last) < Self.floodPause, let start = connection.floodStart {
            if now.seconds(since: start) >= 1 {
                throttled("flood-close", .warn, "closing \(connection.client) with 1008: flooding past the rate limit for a whole second")
                close(connection, code: 1008, reason: "rate limit exceeded")
            }
        } else {
            connection.floodStart = now
        }
        connection.lastRateLimited = now
    }

    /// A pause in rate_limited rejects this long ends a flood: a client past the
    /// limit gets them back to back, one within the 3.3 ms a token takes to refill.
    static let floodPause = 0.25
}

/// An HTTP problem body: `{"code","message"}`.
func problemBody(_ code: String, _ message: String) -> [UInt8] {
    JSON.object([JSONMember("code", .string(code)), JSONMember("message", .string(message))]).bytes
}
