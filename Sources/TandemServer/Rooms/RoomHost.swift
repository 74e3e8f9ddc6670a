import TandemCore
import TandemWire

/// One room on the server: its engine, its members' connections, the
/// shared encoder that encodes each change once for every recipient, and the
/// state of its fan-out rounds (docs/architecture.md, "Fan-out rounds").
///
/// The engine is the kind's own: a standalone `Room` (`LocalRoomHost`) or a
/// cluster's `RoomView` (`ViewHost`). What every kind shares (the transport,
/// the fan-out, the answers) reads the room here and takes its frames
/// through the three methods below; only a kind's own code, holding its own
/// host type, can change its room, and a view has nothing to apply with.
class RoomHost {
    /// The room, to read (its id, schema, revision, who is in it, frames pending).
    var room: Room { _read { fatalError("RoomHost is abstract: a kind of rooms makes its own host") } }

    /// The member's next frame, if it has one (`Room.nextFrame(for:)`).
    func nextFrame(for client: ClientID) -> Frame? { fatalError("abstract") }
    /// Opens a fan-out round (`Room.openRound()`).
    func openRound() -> RoundUpdate? { fatalError("abstract") }
    /// The member's share of a round (`Room.share(of:for:slot:)`): `slot`,
    /// the member's slot as its connection remembers it, is tried first and
    /// set to where the member is.
    func share(of round: RoundUpdate, for client: ClientID, slot: inout Int) -> RoundShare { fatalError("abstract") }

    var encoder = UpdateEncoder()
    var members: [ClientID: Connection] = [:]
    /// Commits and gesture entries offered to every member so far (see `Connection.offeredMark`).
    var offered = 0

    // MARK: fan-out rounds (Server+FanOut.swift)

    /// Something every member should see changed since the latest round armed them.
    var dirty = false
    /// When the latest round began and what it cost, in seconds: they set
    /// when the next may start and when it is due (`RoomHost.roundDue`).
    var lastRoundStart = Moment.zero
    var lastRoundCost = 0.0
    /// When a scheduled flush starts the next round, if one is scheduled.
    var flushDue: Moment?
    /// Whether it is in `Server.pendingFlushes`.
    var flushListed = false
    /// Connections whose writable callback came while the room withheld its
    /// frames for storage: armed again as soon as the transaction is written.
    var waitingRelease: [Connection] = []

    /// The last update encoded and its bytes: members that get the same
    /// update (same content stamps, ack and revision) share the encoding.
    var lastUpdate: Update?
    var lastBytes: [UInt8] = []

    /// Arrival times of the messages behind recent commits, by revision modulo
    /// the capacity, for the delivery histogram.
    private var arrivals: [(revision: Int, at: Moment)]

    init() {
        arrivals = Array(repeating: (-1, .zero), count: Self.arrivalCapacity)
    }

    static let arrivalCapacity = 4096

    func noteCommit(revision: Int, arrival: Moment) {
        arrivals[revision & (Self.arrivalCapacity - 1)] = (revision, arrival)
    }

    /// When the message that made `revision` arrived, if it is recent enough to be remembered.
    func commitArrival(_ revision: Int) -> Moment? {
        let slot = arrivals[revision & (Self.arrivalCapacity - 1)]
        return slot.revision == revision ? slot.at : nil
    }
}
