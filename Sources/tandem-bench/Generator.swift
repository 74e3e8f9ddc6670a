#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim
import TandemBench
import TandemCore
import TandemWire

/// Writes `tandem-bench: TEXT` and a newline to standard error.
func printError(_ text: String) {
    let line = Array("tandem-bench: \(text)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

/// Nanoseconds of CLOCK_MONOTONIC.
func monotonicNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// One connection. Small on purpose: the view holds one state per control.
final class Client {
    /// Its number: the receiver number for the latency recorder.
    let index: Int
    /// The room it joins (an index into `Generator.rooms`).
    let room: Int
    /// Its dragger slot in the room (0..<K), or -1 for a receiver.
    let slot: Int
    /// A slow reader (`--slow`).
    let slow: Bool
    /// A probe: opened at the end only to read the server's state from its welcome.
    let probe: Bool
    /// The server it connects to: an index into `Flags.servers` (`--url`, then `--also-url`s).
    let server: Int
    var wsi: OpaquePointer?
    var incoming: [UInt8] = []
    var view: ClientView?
    var welcome: JSON?
    var open = false
    /// The recorder's track this dragger drives, once assigned.
    var track = -1
    var seq = 0
    /// The grid position the gesture began at (the committed one).
    var anchor = 0
    var begun = false
    var nextMove = 0
    var wantsEnd = false
    var ended = false

    init(index: Int, room: Int, slot: Int, slow: Bool, probe: Bool = false, server: Int = 0) {
        self.index = index
        self.room = room
        self.slot = slot
        self.slow = slow
        self.probe = probe
        self.server = server
    }
}

/// An update frame seen before: its bytes and what they decoded to.
struct CachedFrame {
    let bytes: [UInt8]
    let update: DecodedUpdate
}

/// The hash of a frame's bytes, computed in one pass without copying them.
func frameHash(_ bytes: UnsafeRawBufferPointer) -> Int {
    var hasher = Hasher()
    hasher.combine(bytes: bytes)
    return hasher.finalize()
}

/// One room of the run: its path, its schema's validator and the tracks dragged in it.
final class RoomRun {
    let id: String
    let path: UnsafeMutablePointer<CChar>
    var validator: StateValidator?
    /// The thumbs the room offers to drag, from its first welcome.
    var available: [MoveTrack] = []
    /// Per control index: the recorder tracks on that control.
    var tracksOnControl: [[Int]] = []
    /// Open connections in the room (what one move is offered to).
    var connected = 0
    /// Decoded update frames by the hash of their bytes (the bytes are
    /// compared on a hit): a server sends the same bytes to many receivers,
    /// so each distinct frame is parsed and checked once.
    var decoded: [Int: CachedFrame] = [:]

    /// `token`, if any, rides on the path as `?token=` (browsers cannot set headers on a WebSocket either).
    init(id: String, query: String, token: String?) {
        self.id = id
        path = strdup(BenchToken.path("/rooms/\(id)" + (query.isEmpty ? "" : "?\(query)"), token: token))
    }

    deinit { free(path) }
}

/// One lws client context and one event loop holding every connection.
final class Generator {
    let flags: Flags
    private(set) var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    /// Per server (`Flags.servers`): the address, the Origin, and the Host header
    /// (HOST:PORT unless the port is the scheme's default, as a browser sends it).
    private let hostCs: [UnsafeMutablePointer<CChar>]
    private let originCs: [UnsafeMutablePointer<CChar>]
    private let hostHeaderCs: [UnsafeMutablePointer<CChar>]
    private let timer: UnsafeMutablePointer<tandem_timer>
    private var uvLoop: UnsafeMutableRawPointer?
    private var foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    private let pre = tandem_lws_pre()
    private let noValidityPolicy = tandem_idle_policy(0, 0)
    private var scratch: UnsafeMutableRawPointer
    private var scratchCapacity = 4096

    var clients: [Client] = []
    var rooms: [RoomRun]
    var recorder: LatencyRecorder
    /// Violations kept (the first 1,000) and counted.
    var violations: [Violation] = []
    var violationCount = 0
    var connectErrors = 0
    var droppedConnections = 0
    var rejects = 0
    var connected = 0
    var frames: UInt64 = 0
    /// Per server: moves its clients saw (cumulative, like `recorder.delivered`), and
    /// their latencies (reset with the recorder's at the start of the measured window).
    var deliveredByServer: [UInt64]
    var latencyByServer: [LatencyHistogram]
    var bytes: UInt64 = 0
    /// Moves offered: each move sent times the clients in its room.
    var offered: UInt64 = 0
    var measuring = false
    /// Set by the scenario when the loop should stop.
    var done = false
    /// Set when the scenario closes every connection on purpose.
    var closingAll = false
    /// Called by the 1 ms timer.
    var onTick: (() -> Void)?
    /// The rooms the bench created, by id: their welcomes must describe them.
    var expectedSchemas: [String: RoomSchema] = [:]
    /// Why the server will not let the bench in (a 4401/4403 close, a viewer's
    /// welcome for a dragger): the run stops at the first, and this is its message.
    var refusal: String?
    /// Connections the server closed before their welcome, and what to say
    /// about the first five: said after the run, unless a refusal explains
    /// them (lws may drop a close frame that arrives with the handshake's answer).
    var closedBeforeWelcome = 0
    var closedBeforeWelcomeNotes: [String] = []

    init(flags: Flags) throws(HTTP.Failure) {
        self.flags = flags
        rooms = flags.roomIDs.map { RoomRun(id: $0, query: flags.query, token: flags.token) }
        recorder = LatencyRecorder(groups: 2)
        protocolName = strdup("tandem.v1")
        let servers = flags.servers.isEmpty ? [BenchURL(tls: flags.tls, host: flags.host, port: flags.port, path: "")] : flags.servers
        hostCs = servers.map { strdup($0.host) }
        // The page a browser would have loaded, scheme included (JUST_USE_RAW_ORIGIN
        // below), so that a same-origin check sees https:// for wss://.
        let authorities = servers.map { $0.port == ($0.tls ? 443 : 80) ? $0.host : "\($0.host):\($0.port)" }
        originCs = authorities.map { strdup("\(flags.tls ? "https" : "http")://\($0)") }
        hostHeaderCs = authorities.map { strdup($0) }
        deliveredByServer = Array(repeating: 0, count: servers.count)
        latencyByServer = Array(repeating: LatencyHistogram(), count: servers.count)
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = benchCallback
        protocols[0].per_session_data_size = 0
        protocols[0].rx_buffer_size = 0
        timer = .allocate(capacity: 1)
        timer.initialize(to: tandem_timer())
        scratch = .allocate(byteCount: scratchCapacity, alignment: 16)

        lws_set_log_level(LLL_ERR, nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        var options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) | UInt64(LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN)
        // A client context sets up OpenSSL only when told to.
        if flags.tls { options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        if flags.eventLoop == "uv" {
            guard let loop = tandem_uv_loop_create() else { throw HTTP.Failure(description: "cannot create a libuv loop") }
            options |= UInt64(LWS_SERVER_OPTION_LIBUV)
            uvLoop = loop
            foreignLoops = .allocate(capacity: 1)
            foreignLoops?.initialize(to: loop)
            info.foreign_loops = foreignLoops
        }
        info.options = options
        // No fd_limit_per_thread: with it set, lws 4.1 finds a socket's wsi by a
        // linear search over every descriptor on each event (38 % of the
        // generator's time at 10,000 connections); without it lws sizes a direct
        // lookup table by `ulimit -n`.
        guard let context = lws_create_context(&info) else { throw HTTP.Failure(description: "cannot create the libwebsockets client context") }
        self.context = context
        timer.pointee.context = context
        timer.pointee.fire = { Generator.owning($0)?.tick() }
        tandem_timer_schedule(timer, 1000)
    }

    deinit {
        shutdown()
        protocols.deallocate()
        free(protocolName)
        for pointer in hostCs + originCs + hostHeaderCs { free(pointer) }
        timer.deallocate()
        scratch.deallocate()
        foreignLoops?.deallocate()
    }

    func shutdown() {
        guard let context else { return }
        tandem_timer_cancel(timer)
        lws_context_destroy(context)
        self.context = nil
        if let uvLoop {
            tandem_uv_loop_finish(uvLoop)
            self.uvLoop = nil
        }
    }

    /// Runs the loop until `done`.
    func run() {
        guard let context else { return }
        if let uvLoop {
            while !done, tandem_uv_run_once(uvLoop) >= 0 {}
        } else {
            while !done, lws_service(context, 0) >= 0 {}
        }
    }

    private func tick() {
        tandem_timer_schedule(timer, 1000)
        onTick?()
    }

    /// Starts connection `client.index`.
    func connect(_ client: Client) {
        var info = lws_client_connect_info()
        info.context = context
        let server = hostCs.indices.contains(client.server) ? client.server : 0
        info.address = UnsafePointer(hostCs[server])
        info.port = Int32(flags.servers.indices.contains(server) ? flags.servers[server].port : flags.port)
        info.path = UnsafePointer(rooms[client.room].path)
        info.host = UnsafePointer(hostHeaderCs[server])
        info.origin = UnsafePointer(originCs[server])
        info.protocol = UnsafePointer(protocolName)
        info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: client.index + 1)
        // No validity pings: lws 4.1 re-files each connection's validity timer in
        // a sorted list on every frame received, a walk over every connection.
        // (Set on the context it does not reach client connections.)
        info.retry_and_idle_policy = noValidityPolicy
        info.ssl_connection = ClientTLS.connectionFlags(flags)
        if lws_client_connect_via_info(&info) == nil {
            connectErrors += 1
        }
    }

    func requestWrite(_ client: Client) {
        if let wsi = client.wsi, client.open { lws_callback_on_writable(wsi) }
    }

    /// Stops or resumes reading from `client`'s socket (slow readers).
    func setReading(_ client: Client, _ reading: Bool) {
        if let wsi = client.wsi, client.open { lws_rx_flow_control(wsi, reading ? 1 : 0) }
    }

    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let tag = lws_get_opaque_user_data(wsi) else { return 0 }
        let index = Int(bitPattern: tag) - 1
        guard clients.indices.contains(index) else { return 0 }
        let client = clients[index]
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            client.wsi = wsi
            client.open = true
            if !client.probe {
                connected += 1
                rooms[client.room].connected += 1
            }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            let piece = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            if !client.probe { bytes += UInt64(length) }
            guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else {
                client.incoming.append(contentsOf: piece)
                return 0
            }
            let receipt = monotonicNow()
            if !client.probe { frames += 1 }
            if client.incoming.isEmpty {
                // The usual case: the whole message in one piece, read in place.
                received(piece, by: client, at: receipt)
            } else {
                client.incoming.append(contentsOf: piece)
                let message = client.incoming
                client.incoming.removeAll(keepingCapacity: true)
                message.withUnsafeBytes { received($0, by: client, at: receipt) }
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writable(client, wsi)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            connectErrors += 1
            client.wsi = nil
            if !done, connectErrors <= 5 {
                let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown"
                // lws' reason for a refused certificate is an opaque "SSL err 1" (its own log line says more).
                let hint = flags.tls && !flags.insecure && why.contains("SSL") ? " (\(ClientTLS.insecureHint))" : ""
                printError("connection \(index) failed: \(why)\(hint)")
            }
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if reason == LWS_CALLBACK_WS_PEER_INITIATED_CLOSE, let input, length >= 2 {
                // The close frame's payload: the code, big-endian, then the reason in UTF-8.
                let payload = UnsafeRawBufferPointer(start: input, count: length)
                let code = Int(payload[0]) << 8 | Int(payload[1])
                if BenchToken.isRefusal(closeCode: code) {
                    refuse(BenchToken.refusal("\(code)", reason: String(decoding: payload.dropFirst(2), as: UTF8.self)))
                    client.open = false
                    if !client.probe {
                        connected -= 1
                        rooms[client.room].connected -= 1
                    }
                }
            }
            if client.open {
                client.open = false
                if !client.probe {
                    connected -= 1
                    rooms[client.room].connected -= 1
                    if !closingAll {
                        droppedConnections += 1
                        if client.view == nil {
                            closedBeforeWelcome += 1
                            if closedBeforeWelcome <= 5 { closedBeforeWelcomeNotes.append("connection \(index) was closed by the server before its welcome") }
                        } else if droppedConnections <= 5 {
                            printError("connection \(index) was closed by the server")
                        }
                    }
                }
            }
            if reason == LWS_CALLBACK_CLIENT_CLOSED { client.wsi = nil }
        default:
            break
        }
        return 0
    }

    private func writable(_ client: Client, _ wsi: OpaquePointer) -> Int32 {
        if closingAll {
            _ = tandem_write_close(wsi, 1000, "bench done", 10)
            return -1
        }
        guard client.track >= 0, !client.ended else { return 0 }
        let track = recorder.tracks[client.track]
        client.seq += 1
        if !client.begun {
            client.begun = true
            client.anchor = client.view.flatMap { track.position(in: $0.states[track.controlIndex]) } ?? 0
            send(track.beginMessage(seq: client.seq), wsi)
            return 0
        }
        if client.wantsEnd {
            client.ended = true
            send(track.endMessage(seq: client.seq), wsi)
            return 0
        }
        let due = recorder.schedule(ofTrack: client.track).movesDue(at: monotonicNow())
        guard due > client.nextMove else {
            client.seq -= 1
            return 0
        }
        // Open loop: the latest due move goes out; its latency counts from its scheduled time.
        let n = due - 1
        client.nextMove = due
        send(track.moveMessage(seq: client.seq, move: n, anchor: client.anchor), wsi)
        offered += UInt64(rooms[client.room].connected) // every client, the dragger too, is sent the preview
        return 0
    }

    private func send(_ message: [UInt8], _ wsi: OpaquePointer) {
        let needed = pre + message.count
        if needed > scratchCapacity {
            scratch.deallocate()
            scratchCapacity = needed * 2
            scratch = .allocate(byteCount: scratchCapacity, alignment: 16)
        }
        message.withUnsafeBytes { (scratch + pre).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        _ = tandem_write_text(wsi, scratch.assumingMemoryBound(to: UInt8.self), message.count)
    }

    func violate(_ found: [Violation]) {
        guard !found.isEmpty else { return }
        violationCount += found.count
        for v in found where violations.count < 1000 { violations.append(v) }
    }

    /// One whole message: welcome, update or reject.
    private func received(_ message: UnsafeRawBufferPointer, by client: Client, at receipt: UInt64) {
        let room = rooms[client.room]
        // Updates dominate, and most reach many receivers byte for byte: decode each once.
        if let validator = room.validator, var view = client.view {
            let key = frameHash(message)
            if let cached = room.decoded[key], cached.bytes.count == message.count,
               message.count == 0 || cached.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, message.baseAddress!, message.count) == 0 }) {
                absorb(cached.update, into: &view, by: client, in: room, validator: validator, at: receipt)
                client.view = view
                return
            }
            if message.starts(with: Self.updatePrefix) {
                let update: DecodedUpdate
                do {
                    update = validator.decode(update: try JSONParser.parse(message))
                } catch {
                    violate([Violation(control: nil, reason: "unparsable frame: \(error.description)")])
                    return
                }
                if room.decoded.count >= 4096 { room.decoded.removeAll(keepingCapacity: true) }
                room.decoded[key] = CachedFrame(bytes: Array(message), update: update)
                absorb(update, into: &view, by: client, in: room, validator: validator, at: receipt)
                client.view = view
                return
            }
        }
        let json: JSON
        do {
            json = try JSONParser.parse(message)
        } catch {
            violate([Violation(control: nil, reason: "unparsable frame: \(error.description)")])
            return
        }
        switch json["type"]?.stringValue {
        case "welcome":
            if room.validator == nil {
                do {
                    let validator = try StateValidator(welcome: json)
                    if let expected = expectedSchemas[room.id] {
                        violate(Self.schemaDifferences(welcome: validator.schema, created: expected))
                    }
                    room.validator = validator
                    room.available = MoveTrack.tracks(in: validator.schema)
                    room.tracksOnControl = Array(repeating: [], count: validator.schema.controls.count)
                } catch {
                    violate([Violation(control: nil, reason: "welcome schema: \(error)")])
                    return
                }
            }
            guard let validator = room.validator else { return }
            // A viewer's drags would all be rejected `forbidden`: say so once instead.
            if client.slot >= 0, json["role"]?.stringValue == "viewer" {
                refuse("the server let the token in as a viewer, whose drags it refuses: the bench needs a token with role editor (admin when it creates rooms)")
                return
            }
            let (view, found) = validator.view(fromWelcome: json)
            client.view = view
            if client.probe { client.welcome = json }
            violate(found)
        case "update":
            // An update before any welcome, or one that did not start like the usual ones.
            guard let validator = room.validator, var view = client.view else {
                violate([Violation(control: nil, reason: "an update before the welcome")])
                return
            }
            let update = validator.decode(update: json)
            absorb(update, into: &view, by: client, in: room, validator: validator, at: receipt)
            client.view = view
        case "presets":
            break // the room's presets list (docs/presets.md): nothing to measure
        case "reject":
            rejects += 1
            if rejects <= 5 { printError("reject: \(String(decoding: message.prefix(300), as: UTF8.self))") }
        case let type:
            violate([Violation(control: nil, reason: "a frame of unknown type \(type.map { "'\($0)'" } ?? "(none)"): \(String(decoding: message.prefix(120), as: UTF8.self))")])
        }
    }

    /// Where a welcome's schema differs from the room the bench created: the
    /// states would otherwise be checked against whatever the welcome claims.
    static func schemaDifferences(welcome: RoomSchema, created: RoomSchema) -> [Violation] {
        guard welcome.controls.map(\.id) == created.controls.map(\.id) else {
            return [Violation(control: nil, reason: "the welcome lists controls \(welcome.controls.map(\.id)), not the \(created.controls.map(\.id)) the bench created")]
        }
        var found: [Violation] = []
        for (seen, made) in zip(welcome.controls, created.controls) where seen.kind != made.kind || seen.commit != made.commit {
            found.append(Violation(control: seen.id, reason: "the welcome describes it as \(describe(seen)), but the bench created \(describe(made))"))
        }
        return found
    }

    private static func describe(_ control: Control) -> String {
        switch control.kind {
        case let .slider(math):
            "a \(control.commit) slider [\(math.min), \(math.max)] step \(math.step.map { "\($0)" } ?? "none")"
        default:
            "a \(control.kind.typeName)"
        }
    }

    private static let updatePrefix = Array("{\"type\":\"update\"".utf8)

    /// Lays one decoded update over a client's view and records the moves it shows.
    private func absorb(_ update: DecodedUpdate, into view: inout ClientView, by client: Client, in room: RoomRun,
                        validator: StateValidator, at receipt: UInt64) {
        violate(update.violations)
        violate(validator.apply(update, to: &view))
        guard !client.probe else { return }
        let group = client.slow ? 1 : 0
        for gesture in update.gestures {
            for track in room.tracksOnControl[gesture.index] where recorder.tracks[track].thumb == gesture.thumb {
                count(recorder.observe(receiver: client.index, track: track, state: gesture.state, at: receipt, group: group), client)
            }
        }
        for change in update.changes {
            for track in room.tracksOnControl[change.index] {
                count(recorder.observe(receiver: client.index, track: track, state: change.state, at: receipt, group: group), client)
            }
        }
    }

    /// A move a client saw, counted for its server too.
    private func count(_ observation: Observation, _ client: Client) {
        guard case let .recorded(_, latency) = observation, deliveredByServer.indices.contains(client.server) else { return }
        deliveredByServer[client.server] += 1
        latencyByServer[client.server].record(latency)
    }

    /// Stops the run at the first refusal: every other connection would be refused alike.
    private func refuse(_ message: String) {
        guard refusal == nil else { return }
        refusal = message
        done = true
        closingAll = true // the connections the shutdown closes are not drops
    }

    /// Gives room `room`'s draggers their tracks on `schedules` (one per slot);
    /// `nil` when the room has fewer thumbs than draggers.
    func assignTracks(room index: Int, schedules: [OpenLoopSchedule]) -> String? {
        let room = rooms[index]
        guard room.available.count >= schedules.count else {
            return "room '\(room.id)' has \(room.available.count) thumbs to drag, fewer than --draggers \(schedules.count)"
        }
        for (slot, schedule) in schedules.enumerated() {
            let track = room.available[slot]
            let number = recorder.addTrack(track, schedule: schedule)
            room.tracksOnControl[track.controlIndex].append(number)
            for client in clients where client.room == index && client.slot == slot {
                client.track = number
                requestWrite(client)
            }
        }
        return nil
    }
}

/// The one lws callback: recovers the generator from the context's user pointer.
func benchCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                   _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let generator = Generator.owning(lws_get_context(wsi)) else { return 0 }
    return generator.handle(wsi, reason, input, length)
}

extension Generator {
    /// The generator an lws context belongs to (its user pointer), for the C callbacks.
    static func owning(_ context: OpaquePointer?) -> Generator? {
        guard let context, let raw = lws_context_user(context) else { return nil }
        return Unmanaged<Generator>.fromOpaque(raw).takeUnretainedValue()
    }
}
