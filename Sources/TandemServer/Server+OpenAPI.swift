/// `GET /api/openapi.json`: the OpenAPI 3.1 description of the HTTP API
/// (docs/api.md). It is the web root's `openapi.json`, so the description and
/// the client that ships beside it stay one version; it is public (no token):
/// it describes the API, it holds nothing of a room.
extension Server {
    func openAPIDocument() -> HTTPAnswer {
        guard let file = StaticFiles(root: config.webRoot).file(for: "/openapi.json"),
              let bytes = try? RoomFiles.read(file.path) else {
            return .json(404, problem("not_found", "this server's web root (--web \(config.webRoot)) holds no openapi.json"))
        }
        return .json(200, bytes)
    }
}
