import TandemCore
import TandemWire

/// One WebSocket client: who it is, where it is, and what its socket owes it.
/// One of these per open connection, from ESTABLISHED to CLOSED.
final class Connection {
    /// The key stored in the lws per-session data.
    let session: UInt64
    /// The lws connection (`struct lws *`).
    let wsi: OpaquePointer
    /// The id the room knows this client by.
    let client: ClientID
    /// The room it joined; `nil` while being turned away (unknown room, shutdown).
    var host: RoomHost?
    /// A WebSocket message being reassembled from its fragments.
    var incoming: [UInt8] = []
    /// The welcome, until the first writable callback sends it.
    var welcome: [UInt8]?
    /// When the server first asked lws to call back on writable with frames
    /// waiting; cleared by that callback. A connection unwritable past the slow
    /// timeout is closed with 4008.
    var armedSince: Moment?
    /// A close the server decided on: sent from the next writable callback.
    var closing: (code: UInt16, reason: String)?
    /// The close code the peer sent, if it closed first.
    var peerCloseCode: UInt16?
    /// Commits and gesture entries addressed to it since its last update, to count what conflation folded.
    var offered = 0
    /// rate_limited rejects in the current one-second window, and the window's start.
    var rateLimited = 0
    var rateWindow = Moment.zero

    init(session: UInt64, wsi: OpaquePointer, client: ClientID) {
        self.session = session
        self.wsi = wsi
        self.client = client
    }
}

/// One room on the server: the engine, its members' connections, and the
/// shared encoder that encodes each change once for every recipient.
final class RoomHost {
    var room: Room
    var encoder = UpdateEncoder()
    var members: [ClientID: Connection] = [:]
    /// Arrival time of the message behind each recent commit, by revision, for the delivery histogram.
    var commitArrivals: [Int: Moment] = [:]

    init(room: Room) {
        self.room = room
    }

    func noteCommit(revision: Int, arrival: Moment) {
        commitArrivals[revision] = arrival
        if commitArrivals.count > 4096 {
            let keep = revision - 2048
            commitArrivals = commitArrivals.filter { $0.key > keep }
        }
    }
}
