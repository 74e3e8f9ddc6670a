import Foundation
import TandemCore
import TandemWire

/// This client's membership of one room, kept across reconnects: the committed
/// state of every control, always current, changes as `AsyncStream`s, and
/// writes that return once acknowledged. Made by
/// `let room = try await RoomSession.connect(url, name: "trainer")`.
/// (TandemCore's `Room` is the room engine the server runs; this is one client's view of a room.)
/// Thread-safe: every field below `lock` is touched only under it (transport
/// events arrive on the transport's thread). Its timers (the token refresh, the
/// reconnect back-off) are the transport's (`WebSocketTransport.schedule`) and
/// its async work (the token provider, `auth`) prefers the transport's
/// executor: none of it waits for a thread of Swift's cooperative pool.
public final class RoomSession: @unchecked Sendable {
    /// A write waiting for its ack (or its reject).
    struct Pending {
        var fields: [JSONMember]
        /// Sets and auth are resent after a reconnect; steps and drags fail.
        var resend: Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    let baseURL: String
    let name: String?
    let transport: any WebSocketTransport
    let tokenProvider: (@Sendable () async throws -> String)?
    private let lock = NSLock()
    private var token: String?
    /// The connection writes go to: set by its welcome, so that nothing is
    /// sent twice (once queued, once resent) on a connection still joining.
    private var connection: (any WebSocketConnection)?
    /// The connection being opened, before its welcome.
    private var opening: (any WebSocketConnection)?
    private var generation = 0
    private var validator: StateValidator?
    private var states: [String: ControlState] = [:]
    private var revisions: [String: Int] = [:]
    private var names: [String: String] = [:]
    private var revision = 0
    private var clientID = ""
    private var role: String?
    private var seq = 0
    private var pending: [Int: Pending] = [:]
    private var welcomeWaiter: CheckedContinuation<Void, any Error>?
    /// Subscribers, each with the control it follows (`nil`: all).
    private var changeStreams: [UUID: (control: String?, continuation: AsyncStream<Change>.Continuation)] = [:]
    private var eventStreams: [UUID: AsyncStream<RoomEvent>.Continuation] = [:]
    private var ghostStreams: [UUID: AsyncStream<Ghost>.Continuation] = [:]
    private var closedByUser = false
    private var welcomed = false
    private var failures = 0
    /// Whether `open` has returned the current connection (so `opening` is set). The
    /// transport's thread may deliver its first events, even the welcome, before that:
    /// they wait in `early`, in order.
    private var opened = false
    private var early: [TransportEvent] = []
    /// The next token refresh, and the refresh under way (asking the provider, sending `auth`).
    private var refreshTimer: (any TransportTimer)?
    private var refreshTask: Task<Void, Never>?
    /// The reconnect waiting out its back-off, and the provider call of a reconnect.
    private var reconnectTimer: (any TransportTimer)?
    private var reconnectTask: Task<Void, Never>?

    init(url: String, name: String?, token: String?, tokenProvider: (@Sendable () async throws -> String)?,
         transport: any WebSocketTransport) {
        baseURL = url
        self.name = name
        self.token = token
        self.tokenProvider = tokenProvider
        self.transport = transport
    }

    deinit {
        // A session nobody holds stops its connection (and its transport, when it was the session's own).
        refreshTimer?.cancel()
        refreshTask?.cancel()
        reconnectTimer?.cancel()
        reconnectTask?.cancel()
        connection?.close()
        opening?.close()
    }

    // MARK: Reading

    /// The room's controls, in schema order.
    public var schema: RoomSchema? { lock.withLock { validator?.schema } }
    /// The room's revision as last seen.
    public var rev: Int { lock.withLock { revision } }
    /// This connection's client id (`c12`); changes on every reconnect.
    public var client: String { lock.withLock { clientID } }
    /// The role the server gave (`viewer`, `editor`, `admin`), when auth is on.
    public var currentRole: String? { lock.withLock { role } }
    /// Control `id`'s committed state.
    public func state(of id: String) -> ControlState? { lock.withLock { states[id] } }
    /// A handle on control `id` (which may not exist: its calls then fail `unknownControl`).
    public func control(_ id: String) -> ControlHandle { ControlHandle(room: self, id: id) }
    /// The schema entry of control `id`.
    public func definition(of id: String) -> Control? {
        lock.withLock { validator.flatMap { v in v.schema.index(of: id).map { v.schema.controls[$0] } } }
    }

    /// Every committed change from now on, this client's own included (`mine`).
    public var changes: AsyncStream<Change> { changes(of: nil) }

    /// Every committed change of control `id` (all controls when `nil`) from now on.
    public func changes(of id: String?) -> AsyncStream<Change> {
        AsyncStream { continuation in
            let key = UUID()
            lock.withLock { changeStreams[key] = (id, continuation) }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.changeStreams.removeValue(forKey: key) } }
        }
    }

    /// Other clients' live gestures (previews) from now on, conflated like the wire.
    public var ghosts: AsyncStream<Ghost> {
        AsyncStream { continuation in
            let key = UUID()
            lock.withLock { ghostStreams[key] = continuation }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.ghostStreams.removeValue(forKey: key) } }
        }
    }

    /// Schema changes, disconnects and reconnects from now on.
    public var events: AsyncStream<RoomEvent> {
        AsyncStream { continuation in
            let key = UUID()
            lock.withLock { eventStreams[key] = continuation }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.eventStreams.removeValue(forKey: key) } }
        }
    }

    // MARK: Connecting

    func connectFirst() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.withLock { welcomeWaiter = continuation }
            openConnection(since: nil)
        }
    }

    private func url(since: Int?) -> String {
        var query: [String] = []
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        if let name { query.append("name=" + (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)) }
        if let token = lock.withLock({ token }) { query.append("token=" + token) }
        if let since { query.append("since=\(since)") }
        return query.isEmpty ? baseURL : baseURL + (baseURL.contains("?") ? "&" : "?") + query.joined(separator: "&")
    }

    private func openConnection(since: Int?) {
        let generation = lock.withLock { () -> Int in
            self.generation += 1
            opened = false
            early = []
            return self.generation
        }
        do {
            let connection = try transport.open(url: url(since: since)) { [weak self] event in
                self?.arrived(event, generation: generation)
            }
            let stale = lock.withLock { () -> Bool in
                guard self.generation == generation, !closedByUser else { return true }
                opening = connection
                return false
            }
            if stale {
                connection.close()
                return
            }
            // What the transport's thread delivered before `open` returned (the welcome may
            // be among it: it needs `opening`), in order; then events go straight to `handle`.
            while let batch = lock.withLock({ () -> [TransportEvent]? in
                guard self.generation == generation else { return nil }
                if early.isEmpty {
                    opened = true
                    return nil
                }
                defer { early = [] }
                return early
            }) {
                for event in batch { handle(event, generation: generation) }
            }
        } catch {
            handle(.closed(code: 1006, reason: error.description), generation: generation)
        }
    }

    /// An event of connection `generation`: handled now once `open` has returned it,
    /// kept in `early` until then.
    private func arrived(_ event: TransportEvent, generation: Int) {
        let now = lock.withLock { () -> Bool in
            guard self.generation == generation else { return false }
            if opened { return true }
            early.append(event)
            return false
        }
        if now { handle(event, generation: generation) }
    }

    /// Puts every control of the room (gauges and buttons aside) back to its
    /// schema's initial state, as one revision and one edit of this
    /// connection's; returns once the server acknowledged it.
    public func reset() async throws {
        try await send([JSONMember("type", .string("reset"))], resend: true)
    }

    /// Closes the connection for good; waiting writes fail with `closed`.
    public func close() {
        let (connection, opening, waiting, streams, events, ghosts, timers, tasks) = lock.withLock {
            closedByUser = true
            defer {
                pending = [:]; changeStreams = [:]; eventStreams = [:]; ghostStreams = [:]
                self.opening = nil
                refreshTimer = nil; reconnectTimer = nil; refreshTask = nil; reconnectTask = nil
            }
            return (self.connection, self.opening, pending.values.map(\.continuation), changeStreams.values.map(\.continuation),
                    eventStreams.values, ghostStreams.values, [refreshTimer, reconnectTimer], [refreshTask, reconnectTask])
        }
        for timer in timers { timer?.cancel() }
        for task in tasks { task?.cancel() }
        opening?.close()
        connection?.close()
        for continuation in waiting { continuation.resume(throwing: TandemError.closed) }
        for stream in streams { stream.finish() }
        for stream in events { stream.finish() }
        for stream in ghosts { stream.finish() }
    }

    private func handle(_ event: TransportEvent, generation: Int) {
        guard lock.withLock({ self.generation == generation }) else { return }
        switch event {
        case .opened:
            break
        case let .text(bytes):
            guard let json = try? JSONParser.parse(bytes) else { return }
            received(json)
        case let .closed(code, reason):
            dropped(code: code, reason: reason)
        }
    }

    private func dropped(code: Int, reason: String) {
        let refusal = code == 4401 || code == 4403 || code == 4404
        let (waiter, failed, stop, delay, since) = lock.withLock { () -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>], Bool, Double, Int?) in
            connection = nil
            opening = nil
            let waiter = welcomed ? nil : welcomeWaiter
            if waiter != nil { welcomeWaiter = nil }
            let lost = pending.filter { !$0.value.resend }
            for key in lost.keys { pending.removeValue(forKey: key) }
            let stop = closedByUser || (refusal && (!welcomed || tokenProvider == nil))
            failures += 1
            // Back-off: 0.1 s doubling to 5 s; a schema change re-joins at once.
            let delay = code == 1012 ? 0 : min(5, 0.1 * pow(2, Double(min(failures - 1, 6))))
            // After a schema change the whole welcome is wanted.
            let since: Int? = code == 1012 || !welcomed ? nil : revision
            return (waiter, lost.values.map(\.continuation), stop, delay, since)
        }
        for continuation in failed { continuation.resume(throwing: TandemError.connectionLost) }
        if let waiter {
            waiter.resume(throwing: refusal ? TandemError.refused(code: code, reason: reason) : TandemError.transport("closed \(code) before the welcome: \(reason)"))
            lock.withLock { closedByUser = true }
            return
        }
        if stop { return }
        emit(.disconnected(code: code, reason: reason))
        // The back-off is the transport's timer (a schema change's 0 s too: never on this stack).
        let timer = transport.schedule(after: delay) { [weak self] in self?.reconnect(since: since, refusal: refusal) }
        let replaced = lock.withLock { () -> (any TransportTimer)? in
            if closedByUser { return timer }
            defer { reconnectTimer = timer }
            return reconnectTimer
        }
        replaced?.cancel()
    }

    /// After the back-off: a fresh token first when the last was refused (or there is none), then the connection.
    private func reconnect(since: Int?, refusal: Bool) {
        let needsToken = lock.withLock { () -> Bool? in
            if closedByUser { return nil }
            reconnectTimer = nil
            return tokenProvider != nil && (refusal || token == nil)
        }
        guard let needsToken else { return }
        guard needsToken, let provider = tokenProvider else {
            openConnection(since: since)
            return
        }
        let task = onTransport { [weak self] in
            if let fresh = try? await provider() { self?.lock.withLock { self?.token = fresh } }
            guard let self, !Task.isCancelled, !self.lock.withLock({ self.closedByUser }) else { return }
            self.openConnection(since: since)
        }
        lock.withLock { reconnectTask = task }
    }

    /// Runs `work` in a task that prefers the transport's executor (its own thread), not the cooperative pool.
    private func onTransport(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            return Task(executorPreference: transport.executor, operation: work)
        }
        return Task(operation: work)
    }

    // MARK: Frames

    private func received(_ json: JSON) {
        switch json["type"]?.stringValue {
        case "welcome": welcome(json)
        case "update": update(json)
        case "reject": reject(json)
        default: break
        }
    }

    private func welcome(_ json: JSON) {
        let partial = json["since"] != nil
        var changes: [Change] = []
        var schemaChanged: RoomSchema?
        let (waiter, resend, connection) = lock.withLock { () -> (CheckedContinuation<Void, any Error>?, [(Int, Pending)], (any WebSocketConnection)?) in
            if !partial {
                guard let fresh = try? StateValidator(welcome: json) else { return (nil, [], nil) }
                if let old = validator, old.schema.controls != fresh.schema.controls { schemaChanged = fresh.schema }
                validator = fresh
                if schemaChanged != nil || !welcomed { states = [:]; revisions = [:] }
            }
            clientID = json["client"]?.stringValue ?? clientID
            role = json["role"]?.stringValue
            revision = json["rev"]?.numberValue.map { Int($0) } ?? revision
            for peer in json["peers"]?.arrayValue ?? [] {
                if let id = peer["client"]?.stringValue { names[id] = peer["name"]?.stringValue }
            }
            for entry in json["controls"]?.arrayValue ?? [] {
                guard let id = entry["id"]?.stringValue, let stateJSON = entry["state"],
                      case let .success(state)? = validator?.check(control: id, state: stateJSON) else { continue }
                let rev = entry["rev"]?.numberValue.map { Int($0) } ?? 0
                let caughtUp = welcomed && schemaChanged == nil && states[id] != state
                states[id] = state
                revisions[id] = rev
                if caughtUp {
                    let by = entry["by"]?.stringValue
                    changes.append(Change(control: id, state: state, rev: rev, by: by, name: by.flatMap { names[$0] }, mine: false))
                }
            }
            welcomed = true
            failures = 0
            if let opening { self.connection = opening }
            opening = nil
            let waiter = welcomeWaiter
            welcomeWaiter = nil
            // Unacknowledged sets go again, renumbered, in their first order.
            let old = pending.sorted { $0.key < $1.key }
            pending = [:]
            var resend: [(Int, Pending)] = []
            for (_, entry) in old {
                seq += 1
                pending[seq] = entry
                resend.append((seq, entry))
            }
            return (waiter, resend, self.connection)
        }
        for (seq, entry) in resend { connection?.send(Self.frame(entry.fields, seq: seq)) }
        if let schemaChanged { emit(.schemaChanged(schemaChanged)) } else if waiter == nil { emit(.reconnected(rev: rev)) }
        for change in changes { publish(change) }
        waiter?.resume()
        scheduleRefresh()
    }

    private func update(_ json: JSON) {
        var changes: [Change] = []
        var ghosts: [Ghost] = []
        let acked = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            for entry in json["gestures"]?.arrayValue ?? [] {
                guard let id = entry["control"]?.stringValue, let by = entry["by"]?.stringValue, by != clientID,
                      let stateJSON = entry["state"],
                      case let .success(state)? = validator?.check(control: id, state: stateJSON) else { continue }
                ghosts.append(Ghost(control: id, thumb: entry["thumb"]?.stringValue ?? "", by: by, name: names[by],
                                    phase: entry["phase"]?.stringValue ?? "move", state: state))
            }
            for id in json["left"]?.arrayValue ?? [] { if let id = id.stringValue { names.removeValue(forKey: id) } }
            for peer in json["joined"]?.arrayValue ?? [] {
                if let id = peer["client"]?.stringValue { names[id] = peer["name"]?.stringValue }
            }
            if let rev = json["rev"]?.numberValue { revision = max(revision, Int(rev)) }
            for entry in json["changes"]?.arrayValue ?? [] {
                guard let id = entry["control"]?.stringValue, let stateJSON = entry["state"],
                      case let .success(state)? = validator?.check(control: id, state: stateJSON) else { continue }
                let rev = entry["rev"]?.numberValue.map { Int($0) } ?? revision
                // A claim taken or let go is an entry at the revision and state already held: not a commit.
                if revisions[id] == rev && states[id] == state { continue }
                states[id] = state
                revisions[id] = rev
                let by = entry["by"]?.stringValue
                changes.append(Change(control: id, state: state, rev: rev, by: by,
                                      name: by.flatMap { names[$0] } ?? (by == clientID ? name : nil), mine: by == clientID))
            }
            guard let ack = json["ack"]?.numberValue.map({ Int($0) }) else { return [] }
            let done = pending.filter { $0.key <= ack }
            for key in done.keys { pending.removeValue(forKey: key) }
            return done.values.map(\.continuation)
        }
        for change in changes { publish(change) }
        if !ghosts.isEmpty {
            for stream in lock.withLock({ Array(ghostStreams.values) }) { for ghost in ghosts { stream.yield(ghost) } }
        }
        for continuation in acked { continuation.resume() }
    }

    private func reject(_ json: JSON) {
        guard let seq = json["seq"]?.numberValue.map({ Int($0) }) else { return }
        let holder = json["holder"]?.stringValue
        let (entry, holderName) = lock.withLock { (pending.removeValue(forKey: seq), holder.flatMap { names[$0] }) }
        let error = TandemError.reject(code: json["code"]?.stringValue ?? "bad_message",
                                       message: json["message"]?.stringValue ?? "",
                                       holder: holder, holderName: json["holderName"]?.stringValue ?? holderName)
        entry?.continuation.resume(throwing: error)
    }

    private func publish(_ change: Change) {
        for stream in lock.withLock({ Array(changeStreams.values) }) where stream.control == nil || stream.control == change.control {
            stream.continuation.yield(change)
        }
    }

    private func emit(_ event: RoomEvent) {
        for stream in lock.withLock({ Array(eventStreams.values) }) { stream.yield(event) }
    }

    // MARK: Writing

    static func frame(_ fields: [JSONMember], seq: Int) -> [UInt8] {
        JSON.object(fields + [JSONMember("seq", .number(Double(seq)))]).bytes
    }

    /// Sends `fields` with the next seq and returns once the server acknowledged it.
    func send(_ fields: [JSONMember], resend: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = lock.withLock { () -> (Int, (any WebSocketConnection)?)? in
                if closedByUser { return nil }
                seq += 1
                pending[seq] = Pending(fields: fields, resend: resend, continuation: continuation)
                return (seq, connection)
            }
            guard let (seq, connection) = outcome else {
                continuation.resume(throwing: TandemError.closed)
                return
            }
            // Disconnected: a set waits for the reconnect's resend; others fail now.
            guard let connection else {
                if !resend, let entry = lock.withLock({ pending.removeValue(forKey: seq) }) {
                    entry.continuation.resume(throwing: TandemError.connectionLost)
                }
                return
            }
            connection.send(Self.frame(fields, seq: seq))
        }
    }

    /// Sends without waiting for the ack (gesture moves).
    func post(_ fields: [JSONMember]) {
        let (number, connection) = lock.withLock { () -> (Int, (any WebSocketConnection)?) in
            seq += 1
            return (seq, self.connection)
        }
        connection?.send(Self.frame(fields, seq: number))
    }

    // MARK: Tokens

    /// With a provider: asks it for a fresh token before this one expires and
    /// sends `{"type":"auth"}` (the connection stays up). Timed by the
    /// transport; the provider is called in a task on the transport's executor.
    private func scheduleRefresh() {
        guard tokenProvider != nil, let token = lock.withLock({ token }),
              let expiry = Self.expiry(of: token) else { return }
        let lead = max(0.5, (expiry - Date().timeIntervalSince1970) / 2)
        let timer = transport.schedule(after: lead) { [weak self] in self?.refresh() }
        let replaced = lock.withLock { () -> (any TransportTimer)? in
            if closedByUser { return timer }
            defer { refreshTimer = timer }
            return refreshTimer
        }
        replaced?.cancel()
    }

    /// The refresh timer fired: a fresh token from the provider, sent as `auth`, then the next refresh.
    private func refresh() {
        guard let provider = tokenProvider, !lock.withLock({ closedByUser }) else { return }
        let task = onTransport { [weak self] in
            guard let fresh = try? await provider(), !Task.isCancelled, let self else { return }
            self.lock.withLock { self.token = fresh }
            try? await self.send([JSONMember("type", .string("auth")), JSONMember("token", .string(fresh))], resend: true)
            self.scheduleRefresh()
        }
        let replaced = lock.withLock { () -> Task<Void, Never>? in
            if closedByUser { return task }
            defer { refreshTask = task }
            return refreshTask
        }
        replaced?.cancel()
    }

    /// A JWT's `exp` (seconds since 1970), read without checking the signature.
    static func expiry(of token: String) -> Double? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let json = try? JSONParser.parse(Array(data)) else { return nil }
        return json["exp"]?.numberValue
    }
}
