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
    let index: Int
    var wsi: OpaquePointer?
    var incoming: [UInt8] = []
    var view: ClientView?
    var open = false
    /// The slider this client drags, or -1 for a receiver.
    let slider: Int
    var seq = 0
    var begun = false
    var nextMove = 0
    var wantsEnd = false
    var ended = false

    init(index: Int, slider: Int) {
        self.index = index
        self.slider = slider
    }
}

/// One lws client context and one event loop holding every connection.
final class Generator {
    let flags: Flags
    private(set) var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let hostC: UnsafeMutablePointer<CChar>
    private let pathC: UnsafeMutablePointer<CChar>
    private let originC: UnsafeMutablePointer<CChar>
    private let timer: UnsafeMutablePointer<tandem_timer>
    private let pre = tandem_lws_pre()
    private var scratch: UnsafeMutableRawPointer
    private var scratchCapacity = 4096

    var clients: [Client] = []
    var validator: StateValidator?
    var recorder = LatencyRecorder()
    var schedules: [OpenLoopSchedule] = []
    /// Violations kept (the first 1,000) and counted.
    var violations: [Violation] = []
    var violationCount = 0
    var connectErrors = 0
    var droppedConnections = 0
    var rejects = 0
    var connected = 0
    var frames: UInt64 = 0
    var bytes: UInt64 = 0
    /// Frames and bytes received and moves offered (moves sent times their receivers), since start.
    var offered: UInt64 = 0
    /// Moves sent while measuring.
    var movesSent: UInt64 = 0
    var measuring = false
    /// Set by the scenario when the loop should stop.
    var done = false
    /// Called by the 1 ms timer.
    var onTick: (() -> Void)?

    init(flags: Flags) throws(HTTP.Failure) {
        self.flags = flags
        protocolName = strdup("tandem.v1")
        hostC = strdup(flags.host)
        pathC = strdup("/rooms/\(flags.room)")
        originC = strdup(flags.port == 80 ? flags.host : "\(flags.host):\(flags.port)")
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
        info.options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        info.fd_limit_per_thread = UInt32(max(1024, flags.clients + 64))
        guard let context = lws_create_context(&info) else { throw HTTP.Failure(description: "cannot create the libwebsockets client context") }
        self.context = context
        timer.pointee.context = context
        timer.pointee.fire = { context in
            guard let context, let raw = lws_context_user(context) else { return }
            Unmanaged<Generator>.fromOpaque(raw).takeUnretainedValue().tick()
        }
        tandem_timer_schedule(timer, 1000)
    }

    deinit {
        shutdown()
        protocols.deallocate()
        free(protocolName)
        free(hostC)
        free(pathC)
        free(originC)
        timer.deallocate()
        scratch.deallocate()
    }

    func shutdown() {
        guard let context else { return }
        tandem_timer_cancel(timer)
        lws_context_destroy(context)
        self.context = nil
    }

    /// Runs the loop until `done`.
    func run() {
        guard let context else { return }
        while !done, lws_service(context, 0) >= 0 {}
    }

    private func tick() {
        tandem_timer_schedule(timer, 1000)
        onTick?()
    }

    /// Starts connection `client.index`.
    func connect(_ client: Client) {
        var info = lws_client_connect_info()
        info.context = context
        info.address = UnsafePointer(hostC)
        info.port = Int32(flags.port)
        info.path = UnsafePointer(pathC)
        info.host = UnsafePointer(hostC)
        info.origin = UnsafePointer(originC)
        info.protocol = UnsafePointer(protocolName)
        info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: client.index + 1)
        if lws_client_connect_via_info(&info) == nil {
            connectErrors += 1
        }
    }

    func requestWrite(_ client: Client) {
        if let wsi = client.wsi, client.open { lws_callback_on_writable(wsi) }
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
            connected += 1
            if client.slider >= 0 { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            let receipt = monotonicNow()
            if let input, length > 0 {
                client.incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            bytes += UInt64(length)
            guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
            frames += 1
            let message = client.incoming
            client.incoming.removeAll(keepingCapacity: client.incoming.capacity <= 4096)
            received(message, by: client, at: receipt)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writable(client, wsi)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            connectErrors += 1
            client.wsi = nil
            if !done, connectErrors <= 5 {
                let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown"
                printError("connection \(index) failed: \(why)")
            }
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if client.open {
                client.open = false
                connected -= 1
                if !closingAll { droppedConnections += 1 }
            }
            if reason == LWS_CALLBACK_CLIENT_CLOSED { client.wsi = nil }
        default:
            break
        }
        return 0
    }

    /// Set when the scenario closes every connection on purpose.
    var closingAll = false

    private func writable(_ client: Client, _ wsi: OpaquePointer) -> Int32 {
        if closingAll {
            return tandem_write_close(wsi, 1000, "bench done", 10) < 0 ? -1 : -1
        }
        guard client.slider >= 0, !client.ended, client.slider < schedules.count || !client.begun else { return 0 }
        let control = MoveCode.sliderID(client.slider)
        client.seq += 1
        if !client.begun {
            client.begun = true
            send(MoveCode.beginMessage(seq: client.seq, control: control), wsi)
            lws_callback_on_writable(wsi)
            return 0
        }
        if client.wantsEnd {
            client.ended = true
            send(Self.endMessage(seq: client.seq, control: control), wsi)
            return 0
        }
        let schedule = schedules[client.slider]
        let due = schedule.movesDue(at: monotonicNow())
        guard due > client.nextMove else {
            client.seq -= 1
            return 0
        }
        // Open loop: the latest due move goes out; its latency counts from its scheduled time.
        let n = due - 1
        client.nextMove = due
        send(MoveCode.moveMessage(seq: client.seq, control: control, move: n), wsi)
        offered += UInt64(connected) // every client, the dragger too, is sent the preview
        if measuring { movesSent += 1 }
        return 0
    }

    static func endMessage(seq: Int, control: String) -> [UInt8] {
        Array("{\"type\":\"drag\",\"seq\":\(seq),\"control\":\"\(control)\",\"phase\":\"end\"}".utf8)
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

    private func violate(_ found: [Violation]) {
        guard !found.isEmpty else { return }
        violationCount += found.count
        for v in found where violations.count < 1000 { violations.append(v) }
    }

    /// Parses a whole message: welcome, update or reject.
    private func received(_ message: [UInt8], by client: Client, at receipt: UInt64) {
        let json: JSON
        do {
            json = try JSONParser.parse(message)
        } catch {
            violate([Violation(control: nil, reason: "unparsable frame: \(error.description)")])
            return
        }
        switch json["type"]?.stringValue {
        case "welcome":
            if validator == nil {
                do {
                    validator = try StateValidator(welcome: json)
                } catch {
                    violate([Violation(control: nil, reason: "welcome schema: \(error)")])
                    return
                }
            }
            guard let validator else { return }
            let (view, found) = validator.view(fromWelcome: json)
            client.view = view
            violate(found)
        case "update":
            guard let validator, var view = client.view else { return }
            violate(validator.apply(update: json, to: &view))
            client.view = view
            for key in ["gestures", "changes"] {
                guard let entries = json[key]?.arrayValue else { continue }
                for entry in entries {
                    guard let id = entry["control"]?.stringValue, recorder.schedule(of: id) != nil,
                          let stateJSON = entry["state"],
                          case let .success(state) = validator.check(control: id, state: stateJSON) else { continue }
                    _ = recorder.observe(receiver: client.index, control: id, state: state, at: receipt)
                }
            }
        case "reject":
            rejects += 1
        default:
            break
        }
    }
}

/// The one lws callback: recovers the generator from the context's user pointer.
func benchCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                   _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    return Unmanaged<Generator>.fromOpaque(raw).takeUnretainedValue().handle(wsi, reason, input, length)
}
