import TandemCore

/// What one observed state meant to the `LatencyRecorder`.
public enum Observation: Sendable, Hashable {
    /// A move this receiver had not seen yet; its latency was recorded.
    case recorded(move: Int, latency: UInt64)
    /// A move this receiver had already seen, or an older one: not recorded again.
    case repeated(move: Int)
    /// Not a move: a control no dragger drives, or a value no move previews.
    case notAMove
}

/// Turns the slider values receivers see back into the moves that produced
/// them (see `MoveCode`) and records each move's latency from its scheduled
/// time (see `OpenLoopSchedule`), once per receiver and move.
///
/// Conflation means a receiver may skip moves; it then records the ones it
/// sees. `delivered` counts recorded moves, so `delivered` against the moves
/// offered says how much conflation folded.
public struct LatencyRecorder: Sendable {
    /// Every latency recorded.
    public private(set) var total: LatencyHistogram
    /// The latencies recorded since the last `takeInterval()`.
    public private(set) var interval: LatencyHistogram
    /// Moves recorded (new to their receiver).
    public private(set) var delivered: UInt64 = 0
    /// Moves a receiver saw again (the commit at a gesture's end, a repeated preview).
    public private(set) var repeated: UInt64 = 0
    /// States that reflected no move.
    public private(set) var unrelated: UInt64 = 0

    private var tracks: [String: Int] = [:]
    private var schedules: [OpenLoopSchedule] = []
    /// Per receiver, per track: the newest move seen, -1 for none.
    private var lastSeen: [[Int]] = []

    public init(significantDigits: Int = 3, highestTrackable: UInt64 = 3_600_000_000_000) {
        total = LatencyHistogram(significantDigits: significantDigits, highestTrackable: highestTrackable)
        interval = total
    }

    /// The controls being dragged, in the order they were added.
    public var movers: [String] {
        tracks.sorted { $0.value < $1.value }.map(\.key)
    }

    /// Declares that `control` is dragged on `schedule`.
    public mutating func addMover(control: String, schedule: OpenLoopSchedule) {
        if let track = tracks[control] {
            schedules[track] = schedule
            for r in lastSeen.indices { lastSeen[r][track] = -1 }
            return
        }
        tracks[control] = schedules.count
        schedules.append(schedule)
        for r in lastSeen.indices { lastSeen[r].append(-1) }
    }

    /// The schedule `control` is dragged on, if a dragger drives it.
    public func schedule(of control: String) -> OpenLoopSchedule? {
        tracks[control].map { schedules[$0] }
    }

    /// Receiver `receiver` (a small number from 0) saw `control` at slider `value` at time `receipt`.
    public mutating func observe(receiver: Int, control: String, value: Double, at receipt: UInt64) -> Observation {
        guard let track = tracks[control] else {
            unrelated += 1
            return .notAMove
        }
        let schedule = schedules[track]
        let due = schedule.movesDue(at: receipt)
        guard due > 0, let move = MoveCode.move(fromValue: value, latest: due - 1) else {
            unrelated += 1
            return .notAMove
        }
        precondition(receiver >= 0, "receivers are numbered from 0")
        while lastSeen.count <= receiver {
            lastSeen.append(Array(repeating: -1, count: schedules.count))
        }
        guard move > lastSeen[receiver][track] else {
            repeated += 1
            return .repeated(move: move)
        }
        lastSeen[receiver][track] = move
        let latency = schedule.latency(ofMove: move, receivedAt: receipt)
        total.record(latency)
        interval.record(latency)
        delivered += 1
        return .recorded(move: move, latency: latency)
    }

    /// The same for a whole state: a slider's value counts, anything else is no move.
    public mutating func observe(receiver: Int, control: String, state: ControlState, at receipt: UInt64) -> Observation {
        guard case let .slider(value) = state else {
            unrelated += 1
            return .notAMove
        }
        return observe(receiver: receiver, control: control, value: value, at: receipt)
    }

    /// The interval's latencies, leaving the interval empty (the progress line's once-a-second sample).
    public mutating func takeInterval() -> LatencyHistogram {
        let taken = interval
        interval.reset()
        return taken
    }
}
