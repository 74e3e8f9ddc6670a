import CTandemShim
import TandemAuth
import TandemCore

/// The server's counters, exposed at `GET /metrics` in Prometheus text format.
///
/// Everything runs on the event loop thread, so these are plain integers.
final class Metrics {
    var connectionsOpen = 0
    var connectionsTotal = 0
    var messagesIn: [String: Int] = [:]
    var rejects: [RejectCode: Int] = [:]
    var closes: [Int: Int] = [:]
    var framesOut = 0
    var bytesOut = 0
    /// Commits and gesture entries that were replaced by a newer one before a recipient's frame went out.
    var updatesConflated = 0
    var httpRequests: [Int: Int] = [:]
    /// Refused tokens by reason: a `TokenFailure.label`, or `room` (does not
    /// cover the room), `role` (HTTP: the role may not), `refresh` (another
    /// `sub`, or a changed role).
    var authFailures: [String: Int] = [:]
    /// Requests refused by the origin, host, admin and body rules, by reason (Server+Origins.swift, Server+Bodies.swift).
    var refusals: [String: Int] = [:]
    /// Fan-out rounds started (docs/architecture.md, "Fan-out rounds"), and the members they wrote or armed.
    var fanoutRounds = 0
    /// Heap trims after a burst of opens or closes (MemoryTrim.swift).
    var memoryTrims = 0
    var fanoutArmed = 0
    /// What fan-out rounds cost: the pass over a room's members that writes (under TLS, arms) them.
    var fanoutRound = Histogram(bounds: [0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1])
    /// From the arrival of the message that made a commit to the write of each frame carrying it.
    var commitDelivery = Histogram(bounds: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5])
    /// How late the housekeeping timer fires: a measure of how busy the event loop is.
    var loopLag = Histogram(bounds: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1])
    /// Connection limits, handshake checks, WebSocket edges (Metrics+Transport.swift).
    var transport = TransportMetrics()
    /// Timeline reads and the log rows they took (Metrics+Timeline.swift).
    var timeline = TimelineMetrics()
    /// Descriptors, memory, CPU time and the start time (Metrics+Process.swift).
    let process = ProcessMetrics()

    /// Close codes whose series exist from the start, so that a rate over them
    /// is 0 rather than absent (deploy/prometheus/tandem.rules.yml): normal,
    /// going away, vanished, policy (a flood past the rate limit), overloaded
    /// (the connection limit), slow consumer.
    static let usualCloseCodes = [1000, 1001, 1006, 1008, 1013, 4008]

    /// The Prometheus text exposition of every metric, plus the gauges passed in.
    func exposition(rooms: Int, members: Int) -> String {
        var out = PrometheusText()
        out.metric("tandem_connections", "gauge", "WebSocket connections open.", [("", connectionsOpen)])
        out.metric("tandem_connections_total", "counter", "WebSocket connections accepted.", [("", connectionsTotal)])
        out.metric("tandem_rooms", "gauge", "Rooms served.", [("", rooms)])
        out.metric("tandem_room_members", "gauge", "People in all rooms.", [("", members)])
        out.metric("tandem_messages_in_total", "counter", "Client messages received, by type (invalid: not decodable).",
                   ["drag", "set", "step", "undo", "redo", "reset", "claim", "release", "focus", "auth", "invalid"].map { ("{type=\"\($0)\"}", messagesIn[$0, default: 0]) })
        out.metric("tandem_rejects_total", "counter", "Messages rejected, by code.",
                   RejectCode.allCases.map { ("{code=\"\($0.rawValue)\"}", rejects[$0, default: 0]) })
        out.metric("tandem_closes_total", "counter", "WebSocket closes, by close code.",
                   Set(closes.keys).union(Self.usualCloseCodes).sorted().map { ("{code=\"\($0)\"}", closes[$0, default: 0]) })
        out.metric("tandem_auth_failures_total", "counter", "Requests and connections refused for their token, by reason.",
                   (TokenFailure.labels + ["room", "role", "refresh"]).map { ("{reason=\"\($0)\"}", authFailures[$0, default: 0]) })
        out.metric("tandem_frames_out_total", "counter", "WebSocket frames written.", [("", framesOut)])
        out.metric("tandem_bytes_out_total", "counter", "WebSocket payload bytes written.", [("", bytesOut)])
        out.metric("tandem_updates_conflated_total", "counter",
                   "Commits and gesture entries superseded before a recipient's frame carried them.", [("", updatesConflated)])
        out.metric("tandem_frame_sends_total", "counter",
                   "Frames written straight to their socket, each in one send or one io_uring send (plain TCP; under TLS lws writes them).",
                   [("", Int(tandem_direct_sends()))])
        out.metric("tandem_frames_handed_to_lws_total", "counter",
                   "Frames the socket did not take whole at once: lws sent or buffered the rest.",
                   [("", Int(tandem_frames_handed_to_lws()))])
        out.metric("tandem_sockets_taken_total", "counter",
                   "WebSocket connections taken off lws after their handshake, served by the server's own epoll set and frame reader (--sockets own).",
                   [("", Int(tandem_links_taken()))])
        out.metric("tandem_memory_trims_total", "counter",
                   "Times the freed heap was handed back to the kernel (malloc_trim) after a burst of opens or closes settled.",
                   [("", memoryTrims)])
        out.metric("tandem_send_batches_total", "counter",
                   "io_uring submits of fan-out rounds' frames (--sends io_uring): frame sends ÷ this is the batch size.",
                   [("", Int(tandem_batch_submits()))])
        out.metric("tandem_fanout_rounds_total", "counter",
                   "Fan-out rounds started: each writes (or, under TLS, wakes) every member of a room that has something new.",
                   [("", fanoutRounds)])
        out.metric("tandem_fanout_armed_total", "counter",
                   "Members written or woken by fan-out rounds.", [("", fanoutArmed)])
        out.metric("tandem_http_requests_total", "counter", "HTTP requests answered, by status.",
                   httpRequests.keys.sorted().map { ("{status=\"\($0)\"}", httpRequests[$0]!) })
        out.metric("tandem_http_refused_total", "counter",
                   "Requests refused by the Host, Origin, admin and body rules, by reason.",
                   refusals.keys.sorted().map { ("{reason=\"\($0)\"}", refusals[$0]!) })
        out.text += commitDelivery.exposition(name: "tandem_commit_delivery_seconds",
                                         help: "From the arrival of a committing message to each write of a frame carrying the commit.")
        out.text += fanoutRound.exposition(name: "tandem_fanout_round_seconds",
                                      help: "How long a fan-out round took: the pass over a room's members that writes (or, under TLS, wakes) them.")
        out.text += loopLag.exposition(name: "tandem_event_loop_lag_seconds",
                                  help: "How late the 250 ms housekeeping timer fired.")
        out.text += transport.exposition()
        out.text += timeline.exposition()
        out.text += process.exposition()
        return out.text
    }
}

/// Prometheus' text format, written metric by metric.
struct PrometheusText {
    var text = ""

    /// One metric: its HELP and TYPE lines, then a sample per label set (`""`:
    /// none); counts are whole, seconds and Unix times need not be.
    mutating func metric<Value: Numeric>(_ name: String, _ type: String, _ help: String, _ samples: [(String, Value)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (labels, value) in samples { text += "\(name)\(labels) \(value)\n" }
    }
}

/// A cumulative histogram with fixed upper bounds, in seconds.
struct Histogram {
    let bounds: [Double]
    private(set) var counts: [Int]
    private(set) var count = 0
    private(set) var sum = 0.0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ seconds: Double, count n: Int = 1) {
        count += n
        sum += seconds * Double(n)
        if let i = bounds.firstIndex(where: { seconds <= $0 }) { counts[i] += n }
    }

    func exposition(name: String, help: String) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (bound, n) in zip(bounds, counts) {
            cumulative += n
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return out
    }
}
