import TandemCore
import TandemWire

/// `GET /api/rooms`, the list the web lobby (`/` without `?room=`) draws and
/// refreshes every few seconds.
extension Server {
    /// `{"rooms":[{"id","title","clients","people"}],"admin":Bool}`: with auth
    /// on, only the rooms the token opens. `people` is how many are in the room
    /// now, announced or not (`clients` is the same number, kept for older
    /// readers). `admin` says whether this request could create rooms, so the
    /// lobby shows its "New room" form only to those whose POST would succeed.
    func roomList(_ exchange: HTTPExchange) -> HTTPAnswer {
        let list: [JSON] = rooms.order.compactMap { id in
            guard let host = rooms[id], exchange.claims?.covers(room: id) ?? true else { return nil }
            let people = JSON.number(Double(host.room.present))
            return ["id": .string(id), "title": .string(host.room.schema.title), "clients": people, "people": people]
        }
        return .json(200, JSON.object([JSONMember("rooms", .array(list)), JSONMember("admin", .bool(mayAdminister(exchange)))]).bytes)
    }

    /// Whether a `POST /api/rooms` with this request's credentials would pass
    /// `authorizeAPI` and `adminRefusal`: an admin token with auth on; with
    /// auth off, `--open-admin` or a loopback peer not relayed by a proxy.
    func mayAdminister(_ exchange: HTTPExchange) -> Bool {
        if config.access.authEnabled { return exchange.claims?.role == .admin }
        return config.access.openAdmin || (exchange.peer?.isLoopback == true && !exchange.relayed)
    }
}

extension Server {
    /// The web root's file for a GET: `/` without `?room=` is the lobby
    /// (`web/lobby.html`); `/?room=ID` (every link made before the lobby, with
    /// or without `token=` and `name=`) stays the room page, `web/index.html`.
    /// A web root without a lobby.html (`--web` with a client of one's own)
    /// keeps serving its index.html for `/`.
    func page(_ exchange: HTTPExchange) -> StaticFile? {
        let files = StaticFiles(root: config.webRoot)
        if exchange.path == "/", (exchange.query["room"] ?? "").isEmpty, let lobby = files.file(for: "/lobby.html") {
            return lobby
        }
        return files.file(for: exchange.path)
    }
}
