import TandemCore
import TandemStorage
import TandemWire

/// `GET /api/rooms/{room}/series/{control}?from=MS&to=MS&points=N`: at most
/// N points (default 300, 1–5,000) of the control's series between `from`
/// and `to` (Unix milliseconds; default: the oldest kept, and now), as
/// `{"room","control","width","from","to","points":[[t,min,max,last],…]}`,
/// `t` each bucket's start and `width` the buckets' width in ms
/// (docs/series.md). 404 `unknown_control`, 404 `no_series` for a control
/// that keeps none, 400 `bad_value` for a bad query, 503 when the store (Redis,
/// for a room another node owns) cannot be read.
extension Server {
    func seriesRoute(_ exchange: HTTPExchange, _ host: RoomHost, control id: String) -> HTTPAnswer {
        guard exchange.method == .get else { return .methodNotAllowed("GET") }
        let schema = host.room.schema
        guard let index = schema.index(of: id) else {
            return .json(404, problem("unknown_control", "no control '\(id)' in room '\(schema.id)'"))
        }
        let control = schema.controls[index]
        guard control.keepsSeries else {
            let why = if case .gauge = control.kind { "its room file says \"series\": false" }
                else { "a \(control.kind.typeName) keeps one when its room file says \"series\": true" }
            return .json(404, problem("no_series", "'\(id)' keeps no series: \(why)"))
        }
        let query: SeriesQuery
        switch SeriesQuery.make(exchange.query) {
        case let .success(q): query = q
        case let .failure(refusal): return .json(400, problem("bad_value", refusal.message))
        }
        let to = query.to ?? WallClock.milliseconds()
        let points: SeriesPoints
        do {
            points = try service.seriesPoints(room: schema.id, control: id, from: query.from, to: to, limit: query.points)
        } catch {
            log.error("series: \(error)")
            return .json(503, problem("storage", "the series could not be read; try again"))
        }
        var out = JSONWriter(capacity: 128 + 64 * points.buckets.count)
        out.append(raw: "{\"room\":")
        out.append(string: schema.id)
        out.append(raw: ",\"control\":")
        out.append(string: id)
        out.append(raw: ",\"width\":")
        out.append(int: Int(points.width))
        out.append(raw: ",\"from\":")
        if let from = query.from ?? points.buckets.first?.start { out.append(int: Int(from)) } else { out.appendNull() }
        out.append(raw: ",\"to\":")
        out.append(int: Int(to))
        out.append(raw: ",\"points\":")
        out.append(array: points.buckets) { out, b in
            out.append(raw: "[")
            out.append(int: Int(b.start))
            out.append(raw: ",")
            out.append(number: b.min)
            out.append(raw: ",")
            out.append(number: b.max)
            out.append(raw: ",")
            out.append(number: b.last)
            out.append(raw: "]")
        }
        out.append(raw: "}")
        return .json(200, out.bytes)
    }
}

/// The query of a series request, checked.
struct SeriesQuery {
    var from: Int64?
    var to: Int64?
    var points = 300

    static let maxPoints = 5_000

    struct Refusal: Error {
        var message: String
    }

    static func make(_ query: [String: String]) -> Result<SeriesQuery, Refusal> {
        var q = SeriesQuery()
        for (key, name) in [(\SeriesQuery.from, "from"), (\SeriesQuery.to, "to")] {
            guard let text = query[name] else { continue }
            guard let ms = Int64(text) else {
                return .failure(Refusal(message: "\(name) must be Unix time in milliseconds (a whole number)"))
            }
            q[keyPath: key] = ms
        }
        if let from = q.from, let to = q.to, from > to { return .failure(Refusal(message: "from must not be after to")) }
        if let text = query["points"] {
            guard let n = Int(text), (1...maxPoints).contains(n) else {
                return .failure(Refusal(message: "points must be a whole number from 1 to \(maxPoints)"))
            }
            q.points = n
        }
        return .success(q)
    }
}
