import TandemCore

/// Reset over HTTP: `POST /api/rooms/{room}/controls/{control}/reset` puts one
/// control back to its schema's initial state and answers as a `PUT` does
/// (`{"control","state","rev"}`); `POST /api/rooms/{room}/reset` puts every
/// control back (gauges and buttons aside) as ONE revision and answers
/// `{"rev","changed":[ids]}`. Both are the WebSocket's
/// `{"type":"reset",...}` committed as client `api` (docs/protocol.md,
/// "Reset"): `busy` while a touched thumb is held (409), a gauge's
/// `read_only` and a button's `bad_value` (400). A body is not read.
extension Server {
    func resetRoute(_ exchange: HTTPExchange, _ host: RoomHost, control: String?) -> HTTPAnswer {
        guard exchange.method == .post else { return .methodNotAllowed("POST") }
        if let control, host.room.schema.index(of: control) == nil {
            metrics.rejects[.unknownControl, default: 0] += 1
            return .json(404, problem("unknown_control", "no control '\(control)' in room '\(host.room.id)'"))
        }
        metrics.messagesIn["reset", default: 0] += 1
        return service.write(.reset(control: control), in: host, exchange: exchange)
    }
}
