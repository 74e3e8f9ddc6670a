import CTandemShim
import Glibc
import TandemCore
import TandemOSC
import TandemOSCLink

/// The OSC bridge's state (docs/osc.md): its sockets, its writers in each
/// room, the commits and previews on their way out, and its counters. The
/// server drives it (Server+OSC.swift); nothing here touches a room.
final class OSCBridge {
    let settings: OSCSettings
    /// One per `--osc-send` target.
    let senders: [OSCSender]
    /// Each target as given, with the address its name resolved to at start.
    let targetNames: [String]
    /// The `--osc-listen` socket, if any.
    let receiver: OSCReceiver?
    /// Commits of this turn, as messages, until storage (or Redis) has them.
    var unsent: [(room: String, control: Int, messages: [OSCMessage])] = []
    var previews: PreviewConflator
    /// The name each sender writes under in each room (`/ROOM/name`); a sender is its address and port.
    private var names: [NameKey: String] = [:]
    /// The OSC writers present in each room, by name.
    var writers: [String: [String: Writer]] = [:]
    private var writersMade = 0
    var metrics = OSCMetrics()
    /// The receiver's kernel drop count already counted as `overflow` drops.
    var kernelDropsSeen: UInt32 = 0
    /// Told of a send that failed (the server logs it, rate-limited).
    var sendFailed: (OSCTarget, String) -> Void = { _, _ in }
    /// Wakes the loop when a held-back preview is due.
    let timer: UnsafeMutablePointer<tandem_timer>
    var timerDue: Moment?

    /// Sender names remembered at most: the oldest half is forgotten past this.
    static let nameLimit = 4096
    /// OSC writers present in one room at most (docs/osc.md, "Limits"): a
    /// write under a new name past it is dropped (`too_many_writers`).
    static let maxWritersPerRoom = 64

    /// `/ROOM/dump` requests answered (docs/osc.md, "Limits"): per sender
    /// address (any port: UDP sources are free to choose, and spoofable inside
    /// `--osc-allow`), per room, and in all. The rest are dropped (`dump_limited`).
    var dumpsBySender = RateTable(perSecond: 2, burst: 10)
    var dumpsByRoom = RateTable(perSecond: 4, burst: 10)
    var dumpsInAll = RateTable(perSecond: 20, burst: 40, maxKeys: 1)
    /// New names (`/ROOM/name` of a name the room has no writer of) per sender address.
    var newNames = RateTable(perSecond: 1, burst: 16)

    /// Everyone who writes over OSC under one name in one room: one member of the room.
    struct Writer {
        var client: ClientID
        var name: String
        /// The `seq` of its latest message (the room checks that it grows).
        var seq = 0
        var lastWrite: Moment
        /// In a cluster: registered with the room's owner.
        var registered = false
    }

    private struct NameKey: Hashable {
        var room: String
        var sender: SocketAddress
    }

    init(settings: OSCSettings) throws(ServerError) {
        self.settings = settings
        var senders: [OSCSender] = []
        var shown: [String] = []
        for target in settings.targets {
            let address: String
            switch Self.resolve(target.host) {
            case let .success(found): address = found
            case let .failure(problem):
                throw ServerError(description: "--osc-send \(target): the host name does not resolve (\(problem.description))")
            }
            // The address, not the name, goes to liblo: it would look the name up on the loop, blocking, at the first send.
            let literal = address.contains(":") ? "[\(address)]" : address
            guard let resolved = OSCTarget(url: "udp://\(literal):\(target.port)"), let sender = OSCSender(resolved) else {
                throw ServerError(description: "--osc-send \(target): liblo cannot send there")
            }
            senders.append(sender)
            shown.append(address == target.host ? target.description : "\(target) (\(address))")
        }
        self.senders = senders
        self.targetNames = shown
        if let listen = settings.listen {
            do {
                receiver = try OSCReceiver(address: listen.ip.description, port: listen.port)
            } catch {
                throw ServerError(description: "--osc-listen udp://\(listen): \(error.description)")
            }
        } else {
            receiver = nil
        }
        previews = PreviewConflator(interval: settings.previewInterval)
        timer = .allocate(capacity: 1)
        timer.initialize(to: tandem_timer())
    }

    deinit {
        tandem_timer_cancel(timer)
        timer.deallocate()
        receiver?.close()
    }

    /// Whether anything goes out.
    var sends: Bool { !senders.isEmpty }

    /// The listening address with the port actually bound (after port 0).
    var listening: String? {
        guard let listen = settings.listen, let receiver else { return nil }
        return "udp://\(SocketAddress(ip: listen.ip, port: receiver.port))"
    }

    // MARK: out

    /// Sends `messages` to every target now, counted as `kind` (commit, preview, dump).
    func send(_ messages: [OSCMessage], kind: OSCMetrics.Kind) {
        for message in messages {
            for sender in senders {
                if sender.send(message) {
                    metrics.sent[kind, default: 0] += 1
                } else {
                    metrics.sendErrors += 1
                    sendFailed(sender.target, sender.lastError ?? "liblo gave no reason")
                }
            }
        }
    }

    /// A lookup that failed, in the resolver's words.
    struct LookupFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// `host` as an address: a literal as it is, a name as its first IPv4
    /// address (liblo sends IPv4 to names). Looked up once, at start, so that a
    /// misspelt target stops the server and no lookup ever blocks the loop.
    static func resolve(_ host: String) -> Result<String, LookupFailure> {
        if IPAddress(host) != nil { return .success(host) }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &found)
        defer { if let found { freeaddrinfo(found) } }
        guard status == 0, let first = found?.pointee.ai_addr else {
            return .failure(LookupFailure(description: String(cString: gai_strerror(status == 0 ? EAI_NONAME : status))))
        }
        var v4 = first.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &v4, &text, socklen_t(text.count)) != nil else {
            return .failure(LookupFailure(description: "an address that cannot be written"))
        }
        return .success(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    // MARK: writers

    /// The name `sender` writes under in `room`: its `/ROOM/name`, else `osc`.
    func name(of sender: SocketAddress, in room: String) -> String {
        names[NameKey(room: room, sender: sender)] ?? "osc"
    }

    /// Remembers `name` for `sender`'s later writes in `room`.
    func setName(_ name: String, of sender: SocketAddress, in room: String) {
        if names.count >= Self.nameLimit {
            // Senders come and go (every oscsend is a new port): forget half, any half.
            for key in names.keys.prefix(Self.nameLimit / 2) { names[key] = nil }
        }
        names[NameKey(room: room, sender: sender)] = name
    }

    /// A new client id for a writer named `name`: `osc` for the default name,
    /// `osc.2`, `osc.3`… for others (`prefix` in a cluster: the node's).
    func newClient(named name: String, prefix: String) -> ClientID {
        var base = "osc"
        if name != "osc" {
            writersMade += 1
            base = "osc.\(writersMade + 1)" // after `osc` itself, the first
        }
        return ClientID(prefix.isEmpty ? base : "\(prefix).\(base)")
    }

    /// Forgets everything about `room` (deleted or replaced).
    func forget(room: String) {
        writers[room] = nil
        previews.forget(room: room)
        unsent.removeAll { $0.room == room }
    }
}
