import TandemCore
import TandemOSCLink
import TandemStorage
import TandemWire
@testable import TandemServer

/// The transport's side of the room seam, recorded: what rooms asked of it,
/// in order. Stands in for the server (no lws, no sockets) in the in-process
/// tests of both kinds of rooms.
final class RecordingDelivery: Delivery, RoomObserver {
    enum Call: Equatable {
        case arm(ClientID)
        case broadcast(String)
        case flush(String)
        case close(ClientID, UInt16)
    }

    private(set) var calls: [Call] = []
    /// Deferred HTTP answers, by the exchange's path.
    private(set) var answers: [(path: String, answer: HTTPAnswer)] = []
    /// Commits the rooms told the OSC bridge of.
    private(set) var commits: [Commit] = []

    func arm(_ connection: Connection, at now: Moment) { calls.append(.arm(connection.client)) }
    func broadcast(in host: RoomHost, at now: Moment) { calls.append(.broadcast(host.room.id)) }
    func requestFlush(_ host: RoomHost, at now: Moment) { calls.append(.flush(host.room.id)) }
    func close(_ connection: Connection, code: UInt16, reason: String) {
        connection.closing = (code, reason)
        calls.append(.close(connection.client, code))
    }
    func completeDeferred(_ exchange: HTTPExchange, _ answer: HTTPAnswer) { answers.append((exchange.path, answer)) }
    func refreshProblem(_ connection: Connection, in host: RoomHost, token: String, at now: Moment) -> String? { nil }
    var listeningPort: Int { 0 }
    var connectionCount: Int { 0 }

    func oscCommit(_ commit: Commit, in host: RoomHost) { commits.append(commit) }
    func oscPreview(_ entry: GestureEntry, in host: RoomHost, at now: Moment) {}
    func flushOSC() {}
    func oscCommitted(_ commits: [StoredCommit], room id: String) {}
    func sendDump(_ host: RoomHost) {}
    func oscRoomChanged(_ id: String) {}
    func oscHasRoom(for name: String, in id: String, _ osc: OSCBridge, from source: SocketAddress) -> Bool { true }
    func oscDrop(_ reason: String, _ sentence: String, from source: String) {}

    /// How often `client` was woken.
    func arms(of client: ClientID) -> Int { calls.filter { $0 == .arm(client) }.count }
    func forget() { calls.removeAll() }
}

/// A connection with no socket behind it: rooms reach it only through `Delivery`.
func member(_ n: Int, prefix: String = "") -> Connection {
    Connection(session: UInt64(n), wsi: OpaquePointer(bitPattern: 0x1000 + n)!, fd: -1, client: ClientID("\(prefix)c\(n)"))
}

/// A client message as the browser sends it.
func message(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The status and JSON body of an HTTP answer.
func parts(_ answer: HTTPAnswer) -> (status: Int, body: String)? {
    guard case let .body(status, _, bytes, _) = answer else { return nil }
    return (status, String(decoding: bytes, as: UTF8.self))
}

/// A `PUT …/controls/{control}` body as the server decodes it before the rooms see it.
func put(_ body: String, control: String) throws -> RoomWrite {
    let bytes = Array(body.utf8)
    guard case let .message(set) = MessageDecoder.decodeSetBody(bytes, control: control, seq: 1) else {
        throw BodyRefused(body: body)
    }
    return .set(control: control, message: set, body: bytes)
}

struct BodyRefused: Error {
    var body: String
}

/// The exchange of a `PUT` to demo's `control`.
func putExchange(_ control: String) -> HTTPExchange {
    HTTPExchange(method: .put, path: "/api/rooms/demo/controls/\(control)")
}
