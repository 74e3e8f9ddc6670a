import TandemCore

/// A local room's host: its engine is a standalone `Room`, which this kind
/// of rooms changes directly (joins, messages, lapses, storage's hold).
final class LocalRoomHost: RoomHost {
    private var engine: Room
    /// When the room last told its members how many people are present.
    var presenceRefresh = PresenceRefresh()

    init(room: Room) {
        engine = room
        super.init()
    }

    override var room: Room {
        _read { yield engine }
        _modify { yield &engine }
    }

    override func nextFrame(for client: ClientID) -> Frame? { engine.nextFrame(for: client) }
    override func openRound() -> RoundUpdate? { engine.openRound() }
    override func share(of round: RoundUpdate, for client: ClientID, slot: inout Int) -> RoundShare {
        engine.share(of: round, for: client, slot: &slot)
    }
}

extension LocalRooms {
    /// The host of a room this kind made: every host in its table is a
    /// `LocalRoomHost` (`makeHost`), so a host handed back by the transport is one.
    func local(_ host: RoomHost) -> LocalRoomHost { unsafeDowncast(host, to: LocalRoomHost.self) }
}
