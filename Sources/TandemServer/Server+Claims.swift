import TandemCore

/// An admin breaks a claim over HTTP: `DELETE /api/rooms/{room}/controls/{control}/claim`
/// ends whoever's claim on the control (docs/protocol.md, "Claims") and
/// answers as a `PUT` does (`{"control","state","rev"}`). It is the WebSocket's
/// `release` sent as client `api`, which the room takes from no connection only
/// because this route lets only admins through: an admin token covering the
/// room with auth on (`authorizeAPI`), a loopback peer with auth off, as for
/// the rest of the admin API (`adminRefusal`). Nobody claiming it is 200 too.
extension Server {
    /// Whether a request is this route's: the admin API's, by method and path (parts from `rooms`).
    static func breaksAClaim(_ method: HTTPMethod, _ parts: [String]) -> Bool {
        method == .delete && parts.count == 5 && parts[0] == "rooms" && parts[2] == "controls" && parts[4] == "claim"
    }

    func claimRoute(_ exchange: HTTPExchange, _ host: RoomHost, control: String) -> HTTPAnswer {
        guard exchange.method == .delete else { return .methodNotAllowed("DELETE") }
        guard host.room.schema.index(of: control) != nil else {
            metrics.rejects[.unknownControl, default: 0] += 1
            return .json(404, problem("unknown_control", "no control '\(control)' in room '\(host.room.id)'"))
        }
        metrics.messagesIn["release", default: 0] += 1
        return service.write(.release(control: control), in: host, exchange: exchange)
    }
}
