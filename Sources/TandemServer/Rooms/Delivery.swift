import TandemCore
import TandemOSCLink
import TandemStorage

/// How rooms reach the connections of their members, and the few things
/// they ask of the transport around them: the transport's side of the room
/// seam (`RoomService`). The server implements it over lws; the in-process
/// tests implement it with a recorder. Rooms never touch a socket.
protocol Delivery: AnyObject {
    /// Asks for `connection`'s writable callback, where its next frame goes out.
    func arm(_ connection: Connection, at now: Moment)
    /// Everyone in `host`'s room should see what changed: by the room's fan-out rounds.
    func broadcast(in host: RoomHost, at now: Moment)
    /// A round for `host` now if its period allows, else scheduled (after frames were withheld).
    func requestFlush(_ host: RoomHost, at now: Moment)
    /// Closes `connection` with `code` from its next writable callback.
    func close(_ connection: Connection, code: UInt16, reason: String)
    /// Answers an HTTP request whose answer was deferred (`HTTPAnswer.deferred`).
    func completeDeferred(_ exchange: HTTPExchange, _ answer: HTTPAnswer)
    /// Why `token`, sent by `connection` to refresh its session, is refused, or
    /// `nil` once its claims are taken (auth is the transport's edge).
    func refreshProblem(_ connection: Connection, in host: RoomHost, token: String, at now: Moment) -> String?
    /// The port listened on and the connections open (a cluster node's heartbeat shows them).
    var listeningPort: Int { get }
    var connectionCount: Int { get }
}

/// The OSC bridge's side of the seam (docs/osc.md): what rooms tell it, and
/// the checks it makes for its writers. The server implements it (the
/// bridge's sockets and timers are the transport's); with no bridge each
/// call does nothing.
protocol RoomObserver: AnyObject {
    /// A commit: its messages leave once it is durable (`flushOSC`).
    func oscCommit(_ commit: Commit, in host: RoomHost)
    /// A gesture entry, as a preview.
    func oscPreview(_ entry: GestureEntry, in host: RoomHost, at now: Moment)
    /// The turn's commits are written: their messages go out.
    func flushOSC()
    /// Commits an owner wrote (replicated rooms): out now, once, from the owner.
    func oscCommitted(_ commits: [StoredCommit], room id: String)
    /// A room's dump: every control's messages.
    func sendDump(_ host: RoomHost)
    /// A room was created, replaced or deleted.
    func oscRoomChanged(_ id: String)
    /// Whether a writer named `name` may join `id` (dropped and counted when not).
    func oscHasRoom(for name: String, in id: String, _ osc: OSCBridge, from source: SocketAddress) -> Bool
    /// Counts and logs a message the bridge did not apply.
    func oscDrop(_ reason: String, _ sentence: String, from source: String)
}
