import TandemCore

/// A replicated room's host on this node: its engine is a `RoomView`, which
/// changes only by what the owner publishes; the owner's `RoomAuthority`
/// lives in the room's `RoomReplica`, not here.
final class ViewHost: RoomHost {
    var view: RoomView

    init(view: RoomView) {
        self.view = view
        super.init()
    }

    override var room: Room { _read { yield view.room } }

    override func nextFrame(for client: ClientID) -> Frame? { view.nextFrame(for: client) }
    override func openRound() -> RoundUpdate? { view.openRound() }
    override func share(of round: RoundUpdate, for client: ClientID, slot: inout Int) -> RoundShare {
        view.share(of: round, for: client, slot: &slot)
    }
}

extension ReplicatedRooms {
    /// The host of a room this kind made: every host in its table is a
    /// `ViewHost` (`makeView`), so a host handed back by the transport is one.
    func view(_ host: RoomHost) -> ViewHost { unsafeDowncast(host, to: ViewHost.self) }
}
