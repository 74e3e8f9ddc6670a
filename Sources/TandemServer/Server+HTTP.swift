import CLibWebSockets
import CTandemShim
import TandemCore
import TandemStorage
import TandemWire
#if canImport(Glibc)
import Glibc
#endif

extension Server {
    func httpRequest(_ wsi: OpaquePointer, session: UInt64, path: String) -> Int32 {
        let method = HTTPMethod(rawValue: tandem_http_method(wsi)) ?? .unknown
        let exchange = HTTPExchange(method: method, path: path)
        exchange.session = session
        exchange.peer = PeerAddress(of: wsi)
        exchange.relayed = isRelayed(wsi)
        exchange.ifNoneMatch = header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH)
        for name in ["since", "limit", "room", "from", "to", "points"] {
            if let value = queryArgument(wsi, name) { exchange.query[name] = value }
        }
        if authGate != nil { exchange.token = requestToken(wsi) }
        exchanges[session] = exchange
        if let refusal = requestRefusal(wsi, exchange) { return answer(wsi, exchange, refusal, early: method == .put || method == .post) }
        if method == .put || method == .post {
            if exchange.path.hasPrefix("/api/"), let refusal = tokenRefusal(exchange) {
                return answer(wsi, exchange, refusal, early: true)
            }
            // A body follows: answer once it is complete (lws reports the
            // completion of a Content-Length body; a chunked one is decoded here).
            switch bodyFraming(wsi) {
            case let .refused(refusal):
                return answer(wsi, exchange, refusal, early: true)
            case .length(0):
                break
            case .length:
                return 0
            case .chunked:
                exchange.chunked = ChunkedBody(limit: HTTPExchange.maxBody)
                return 0
            case .none:
                // lws waits for a body it was not told the length of: close after.
                exchange.closeAfter = true
            }
        } else if (Int(header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) ?? "0") ?? 1) != 0
                    || header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil {
            // A body on a GET or DELETE is not read; lws would take it for the next request.
            exchange.closeAfter = true
        }
        return answer(wsi, exchange, route(exchange))
    }

    func httpBody(_ wsi: OpaquePointer, _ session: UInt64, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let exchange = exchanges[session], !exchange.answered else { return 0 }
        if let late = bodyDeadlineRefusal(exchange) { return answer(wsi, exchange, late, early: true) }
        switch exchange.chunked?.feed(bytes) {
        case nil:
            break
        case .needMore?:
            return 0
        case let .complete(body)?:
            exchange.body = body
            // lws still expects a body it cannot frame: close after.
            return answer(wsi, exchange, route(exchange), early: true)
        case .tooLarge?:
            return answer(wsi, exchange, tooLarge(), early: true)
        case let .malformed(why)?:
            return answer(wsi, exchange, .json(400, problem("bad_request", "chunked body: \(why)")), early: true)
        }
        if exchange.body.count + bytes.count > HTTPExchange.maxBody {
            // Content-Length said it would fit (checked before reading): it lied.
            return answer(wsi, exchange, tooLarge(), early: true)
        }
        exchange.body.append(contentsOf: bytes)
        return 0
    }

    func httpBodyComplete(_ wsi: OpaquePointer, _ session: UInt64) -> Int32 {
        guard let exchange = exchanges[session] else { return -1 }
        guard !exchange.answered else { return 0 }
        return answer(wsi, exchange, route(exchange))
    }

    func httpWritable(_ wsi: OpaquePointer, _ session: UInt64) -> Int32 {
        if let exchange = exchanges[session], let pending = exchange.pendingAnswer {
            exchange.pendingAnswer = nil
            return answer(wsi, exchange, pending)
        }
        guard let exchange = exchanges[session], let body = exchange.response else { return 0 }
        exchange.response = nil
        exchanges[session] = nil
        write(wsi, body, http: true, final: true)
        if exchange.closeAfter { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Gives a deferred answer (`HTTPAnswer.deferred`): written from the next
    /// writable callback, unless the client has gone meanwhile.
    func completeDeferred(_ exchange: HTTPExchange, _ answer: HTTPAnswer) {
        guard exchanges[exchange.session] === exchange, let wsi = exchange.wsi, exchange.pendingAnswer == nil else { return }
        exchange.pendingAnswer = answer
        lws_callback_on_writable(wsi)
    }

    /// Sends the headers now and the body from the next writable callback (or
    /// lets lws send a file). `early`: the answer comes before lws has read the
    /// whole body, so the connection closes after it.
    private func answer(_ wsi: OpaquePointer, _ exchange: HTTPExchange, _ answer: HTTPAnswer, early: Bool = false) -> Int32 {
        exchange.answered = true
        if early { exchange.closeAfter = true }
        switch answer {
        case .deferred:
            exchange.wsi = wsi
            return 0
        case let .file(file, contentType):
            if let match = exchange.ifNoneMatch, StaticFile.matches(match, file.etag) {
                return self.answer(wsi, exchange, .body(status: 304, contentType: contentType, bytes: [], headers: [("ETag", file.etag), ("Cache-Control", "no-cache")]))
            }
            metrics.httpRequests[200, default: 0] += 1
            let headers = (responseHeaders(exchange) + [("ETag", file.etag), ("Cache-Control", "no-cache")])
                .map { "\($0.0): \($0.1)\r\n" }.joined()
            let n = headers.withCString { lws_serve_http_file(wsi, file.path, contentType, $0, Int32(strlen($0))) }
            // HEAD: lws wrote the headers and ended the transaction; no FILE_COMPLETION follows.
            if exchange.isHead { exchanges[exchange.session] = nil }
            if n < 0 { return -1 }
            if n > 0 { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
            return 0
        case let .body(status, contentType, bytes, extra):
            metrics.httpRequests[status, default: 0] += 1
            if status >= 400 { log.debug("http \(exchange.method.name) \(exchange.path) -> \(status)") }
            var headers = extra + responseHeaders(exchange)
            if exchange.closeAfter { headers.append(("Connection", "close")) }
            var names = headers.map { strdup($0.0 + ":") }
            var values = headers.map { strdup($0.1) }
            defer { names.forEach { free($0) }; values.forEach { free($0) } }
            let failed = names.withUnsafeMutableBufferPointer { n in
                values.withUnsafeMutableBufferPointer { v in
                    n.withMemoryRebound(to: UnsafePointer<CChar>?.self) { n in
                        v.withMemoryRebound(to: UnsafePointer<CChar>?.self) { v in
                            tandem_write_http_headers(wsi, UInt32(status), contentType, UInt64(bytes.count),
                                                      n.baseAddress, v.baseAddress, Int32(headers.count))
                        }
                    }
                }
            }
            if failed != 0 { return -1 }
            // HEAD: the headers of the GET (its Content-Length included), no body.
            exchange.response = exchange.isHead || status == 304 ? [] : bytes
            lws_callback_on_writable(wsi)
            return 0
        }
    }

    // MARK: routes

    func route(_ exchange: HTTPExchange) -> HTTPAnswer {
        let parts = exchange.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (exchange.method, parts.first) {
        case (.get, "healthz") where parts.count == 1:
            if let problem = healthProblem() { return .text(503, "\(problem)\n") } // Server+Health.swift
            return .text(200, "ok\n")
        case (.get, "metrics") where parts.count == 1:
            var text = metrics.exposition(rooms: rooms.count, members: service.memberCount)
            text += service.exposition()
            if let osc { text += osc.metrics.exposition() }
            return .text(200, text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        case (_, "api") where parts.count == 2 && parts[1] == "openapi.json":
            return exchange.method == .get ? openAPIDocument() : .methodNotAllowed("GET") // Server+OpenAPI.swift
        case (_, "api"):
            if let refusal = authorizeAPI(exchange, Array(parts.dropFirst())) { return refusal }
            if let refusal = budgetRefusal(exchange, Array(parts.dropFirst())) { return refusal } // HTTPBudget.swift
            return api(exchange, Array(parts.dropFirst()))
        case (.get, _):
            if let file = page(exchange) {
                return .file(file, contentType: StaticFiles.contentType(for: file.path))
            }
            return .text(404, "not found\n")
        default:
            return .body(status: 405, contentType: "text/plain; charset=utf-8", bytes: Array("method not allowed\n".utf8), headers: [("Allow", "GET, HEAD")])
        }
    }

    private func api(_ exchange: HTTPExchange, _ parts: [String]) -> HTTPAnswer {
        if let answer = service.ownRoute(exchange, parts) { return answer } // `/api/cluster` with replicated rooms
        guard parts.first == "rooms" else { return .json(404, problem("not_found", "no such API endpoint")) }
        if let refusal = adminRefusal(exchange, parts) { return refusal }
        if parts.count == 1 {
            if exchange.method == .post { return postRoom(exchange) }
            guard exchange.method == .get else { return .methodNotAllowed("GET, POST") }
            return roomList(exchange) // Server+Lobby.swift
        }
        guard let host = rooms[parts[1]] else { return .json(404, problem("unknown_room", "no room '\(parts[1])'")) }
        switch parts.count {
        case 2:
            if exchange.method == .delete { return deleteRoom(host.room.id) }
            guard exchange.method == .get else { return .methodNotAllowed("GET, DELETE") }
            return .json(200, OutboundEncoder.welcome(host.room.snapshot))
        case 3 where parts[2] == "history" || parts[2] == "history.csv":
            guard exchange.method == .get else { return .methodNotAllowed("GET") }
            return history(host.room.id, csv: parts[2] == "history.csv", query: exchange.query)
        case 3... where parts[2] == "presets":
            return presetsAPI(exchange, host, Array(parts.dropFirst(3)))
        case 3 where parts[2] == "timeline" || parts[2] == "restore", 4 where parts[2] == "timeline":
            return timelineRoute(exchange, host, parts) ?? .json(404, problem("not_found", "no such API endpoint"))
        case 4 where parts[2] == "controls":
            guard exchange.method == .put else { return .methodNotAllowed("PUT") }
            return put(host, control: parts[3], exchange: exchange)
        case 4 where parts[2] == "series":
            return seriesRoute(exchange, host, control: parts[3]) // Server+Series.swift
        case 3 where parts[2] == "reset", 5 where parts[2] == "controls" && parts[4] == "reset":
            return resetRoute(exchange, host, control: parts.count == 5 ? parts[3] : nil) // Server+Reset.swift
        case 5 where parts[2] == "controls" && parts[4] == "claim":
            return claimRoute(exchange, host, control: parts[3]) // Server+Claims.swift
        default:
            return .json(404, problem("not_found", "no such API endpoint"))
        }
    }

    /// `PUT /api/rooms/{room}/controls/{control}`: the rules of `set`, committed like any client's.
    private func put(_ host: RoomHost, control: String, exchange: HTTPExchange) -> HTTPAnswer {
        let message: ClientMessage
        switch MessageDecoder.decodeSetBody(exchange.body, control: control, seq: 1) {
        case let .message(decoded):
            metrics.messagesIn["set", default: 0] += 1
            message = decoded
        case let .refused(_, code, text):
            metrics.rejects[code, default: 0] += 1
            return .json(400, problem(code.rawValue, text))
        case .auth, .preset, .restore:
            return .json(400, problem("bad_message", "expected a value")) // a set body never decodes to these
        }
        return service.write(.set(control: control, message: message, body: exchange.body), in: host, exchange: exchange)
    }

    /// `GET /api/rooms/{room}/history?since=REV&limit=N` (JSON) and `history.csv`: the commit log, oldest first.
    func history(_ room: String, csv: Bool, query: [String: String]) -> HTTPAnswer {
        guard let source = service.timelineSource else {
            return .json(501, problem("not_implemented", "this server keeps state in memory (--data :memory:): there is no history"))
        }
        guard let since = Int(query["since"] ?? "0"), since >= 0 else {
            return .json(400, problem("bad_value", "since must be a revision (a whole number ≥ 0)"))
        }
        guard let limit = Int(query["limit"] ?? "1000"), (1...10_000).contains(limit) else {
            return .json(400, problem("bad_value", "limit must be a whole number from 1 to 10000"))
        }
        let commits: [StoredCommit]
        do {
            commits = try source.history(room: room, since: since, limit: limit)
        } catch {
            log.error("\(error)")
            return .json(500, problem("storage", "the history could not be read"))
        }
        if csv {
            var text = "rev,control,state,by,name,time\n"
            for c in commits {
                let state = String(decoding: OutboundEncoder.state(c.state), as: UTF8.self)
                text += [String(c.revision), c.control, state, c.client, c.name, isoTime(c.time)].map(csvField).joined(separator: ",") + "\n"
            }
            return .text(200, text, contentType: "text/csv; charset=utf-8")
        }
        var out = JSONWriter()
        out.append(raw: "{\"room\":")
        out.append(string: room)
        out.append(raw: ",\"history\":")
        out.append(array: commits) { out, c in
            out.append(raw: "{\"rev\":")
            out.append(int: c.revision)
            out.append(raw: ",\"control\":")
            out.append(string: c.control)
            out.append(raw: ",\"state\":")
            out.append(state: c.state)
            out.append(raw: ",\"by\":")
            out.append(string: c.client)
            out.append(raw: ",\"name\":")
            out.append(string: c.name)
            out.append(raw: ",\"time\":")
            out.append(string: isoTime(c.time))
            out.append(raw: "}")
        }
        out.append(raw: "}")
        return .json(200, out.bytes)
    }

    func problem(_ code: String, _ message: String) -> [UInt8] {
        problemBody(code, message)
    }
}

/// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
/// A field that starts with `=`, `+`, `-`, `@`, a tab or a CR gets a `'` in
/// front, so that a spreadsheet shows it as text instead of running it as a
/// formula (OWASP "CSV injection"): a name like `=HYPERLINK(…)` stays inert.
func csvField(_ raw: String) -> String {
    let text = raw.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } == true ? "'" + raw : raw
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    var quoted = "\""
    for character in text {
        if character == "\"" { quoted += "\"\"" } else { quoted.append(character) }
    }
    return quoted + "\""
}

/// Unix milliseconds as an ISO 8601 UTC time with milliseconds.
func isoTime(_ ms: Int64) -> String {
    var seconds = time_t(ms / 1000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ n: Int32, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
        + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms % 1000), 3))Z"
}

extension Array where Element == Effect {
    var rejects: [Reject] {
        compactMap { if case let .reject(r) = $0 { r } else { nil } }
    }
}
