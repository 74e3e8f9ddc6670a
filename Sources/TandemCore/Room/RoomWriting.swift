/// What may write to a room: a standalone `Room` and a cluster's
/// `RoomAuthority`, never a `RoomView`. For rules written once for both
/// (a restore: admitted first, applied as a batch once its past is read).
public protocol RoomWriting {
    mutating func admitWrite(_ client: ClientID, seq: Int, cost: Double, at now: Moment) -> (admitted: Bool, effects: [Effect])
    mutating func applyAdmitted(_ message: ClientMessage, from client: ClientID, at now: Moment) -> [Effect]
    mutating func refuse(_ client: ClientID, seq: Int?, code: RejectCode, message: String) -> [Effect]
}

extension Room: RoomWriting {}
