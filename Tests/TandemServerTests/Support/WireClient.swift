import Foundation

/// A raw protocol-level client for the server's tests, on a `RawWebSocket`:
/// reads the welcome, numbers its messages with increasing `seq`, and waits for
/// frames matching a condition. Frames are plain JSON objects, checked by the
/// test; it is not the Swift client library (module TandemClient, `RoomSession`).
final class WireClient {
    let socket: RawWebSocket
    /// The welcome frame.
    let welcome: JSONObject
    /// The client id the server gave (`welcome.client`).
    let id: String
    /// The last `seq` sent.
    private(set) var seq = 0
    /// Every JSON frame received after the welcome.
    private(set) var received: [JSONObject] = []

    init(port: Int, room: String = "demo", name: String? = nil, receiveBuffer: Int? = nil, timeout: Double = 30) throws {
        var path = "/rooms/\(room)"
        if let name { path += "?name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)" }
        socket = try RawWebSocket(port: port, path: path, receiveBuffer: receiveBuffer, timeout: timeout)
        let first = try socket.receive()
        guard case let .text(text) = first else {
            throw SocketError.protocolViolation("expected the welcome, got \(first)")
        }
        let welcome = try parseObject(text)
        guard welcome["type"] as? String == "welcome", let id = welcome["client"] as? String else {
            throw SocketError.protocolViolation("expected the welcome, got \(text.prefix(300))")
        }
        self.welcome = welcome
        self.id = id
    }

    /// Sends `fields` plus the next `seq`; returns that `seq`.
    @discardableResult
    func send(_ fields: JSONObject) throws -> Int {
        seq += 1
        var message = fields
        message["seq"] = seq
        let data = try JSONSerialization.data(withJSONObject: message)
        try socket.send(text: String(decoding: data, as: UTF8.self))
        return seq
    }

    /// Sends a drag message; returns its `seq`.
    @discardableResult
    func drag(_ control: String, _ thumb: String?, _ phase: String, dx: Double? = nil, at: Double? = nil) throws -> Int {
        var fields: JSONObject = ["type": "drag", "control": control, "phase": phase]
        if let thumb { fields["thumb"] = thumb }
        if let dx { fields["dx"] = dx }
        if let at { fields["at"] = at }
        return try send(fields)
    }

    /// The next text frame as JSON; a close frame throws `Closed`.
    func next() throws -> JSONObject {
        let message = try socket.receive()
        switch message {
        case let .text(text):
            let object = try parseObject(text)
            received.append(object)
            return object
        case let .close(code, reason):
            throw Closed(code: code, reason: reason)
        case .binary:
            throw SocketError.protocolViolation("unexpected binary frame")
        }
    }

    /// Reads frames until one satisfies `condition` (skipping others), for at most `timeout` s.
    func waitFor(_ what: String, timeout: Double = 30, _ condition: (JSONObject) -> Bool) throws -> JSONObject {
        let deadline = Date().addingTimeInterval(timeout)
        var skipped: [JSONObject] = []
        while Date() < deadline {
            let frame: JSONObject
            do {
                frame = try next()
            } catch SocketError.timeout {
                continue
            }
            if condition(frame) { return frame }
            skipped.append(frame)
        }
        throw WaitTimeout(what: what, skipped: skipped)
    }

    /// The next update whose `ack` is at least `seq`.
    @discardableResult
    func waitForAck(_ seq: Int, timeout: Double = 30) throws -> JSONObject {
        try waitFor("an update acking seq \(seq)", timeout: timeout) { frame in
            frame["type"] as? String == "update" && (frame["ack"] as? Int ?? 0) >= seq
        }
    }

    /// Reads until a close frame arrives; returns it (text frames before it are kept in `received`).
    func waitForClose(timeout: Double = 30) throws -> Closed {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            do {
                _ = try next()
            } catch let closed as Closed {
                return closed
            } catch SocketError.timeout {
                continue
            }
        }
        throw WaitTimeout(what: "a close frame", skipped: [])
    }

    struct Closed: Error, CustomStringConvertible {
        var code: UInt16?
        var reason: String
        var description: String { "closed with \(code.map(String.init) ?? "no code") '\(reason)'" }
    }

    struct WaitTimeout: Error, CustomStringConvertible {
        var what: String
        /// The frames seen meanwhile, as JSON text.
        var skipped: [String]
        init(what: String, skipped: [JSONObject]) {
            self.what = what
            self.skipped = skipped.map(describe)
        }
        var description: String {
            "timed out waiting for \(what); frames seen meanwhile: \(skipped.isEmpty ? "none" : skipped.joined(separator: "\n"))"
        }
    }
}
