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

/// Turns the positions receivers see back into the moves that produced
/// them (see `MoveTrack`) and records each move's latency from its scheduled
/// time (see `OpenLoopSchedule`), once per receiver and move.
///
/// Conflation means a receiver may skip moves; it then records the ones it
/// sees. `delivered` counts recorded moves, so `delivered` against the moves
/// offered says how much conflation folded. Receivers can be put in groups
/// (the bench's fast and slow readers), each with a histogram of its own.
public struct LatencyRecorder: Sendable {
    /// Every latency recorded.
    public private(set) var total: LatencyHistogram
    /// The latencies recorded since the last `takeInterval()`.
    public private(set) var interval: LatencyHistogram
    /// Every latency recorded, per receiver group.
    public private(set) var groups: [LatencyHistogram]
    /// Moves recorded (new to their receiver).
    public private(set) var delivered: UInt64 = 0
    /// Moves a receiver saw again (the commit at a gesture's end, a repeated preview).
    public private(set) var repeated: UInt64 = 0
    /// States that reflected no move.
    public private(set) var unrelated: UInt64 = 0
    /// Moves recorded whose position several moves since the receiver's last
    /// could have shown (the track's code repeated within the receiver's
    /// lag): the oldest was taken, so latency is over- rather than
    /// under-reported. Only short tracks (the demo room's) can be ambiguous.
    public private(set) var ambiguous: UInt64 = 0

    public private(set) var tracks: [MoveTrack] = []
    private var schedules: [OpenLoopSchedule] = []
    /// Per receiver, per track: the newest move seen, -1 for none.
    private var lastSeen: [[Int]] = []

    public init(groups: Int = 1, significantDigits: Int = 3, highestTrackable: UInt64 = 3_600_000_000_000) {
        total = LatencyHistogram(significantDigits: significantDigits, highestTrackable: highestTrackable)
        interval = total
        self.groups = Array(repeating: total, count: Swift.max(1, groups))
    }

    /// Declares that `track` is dragged on `schedule`; returns the track's number.
    @discardableResult
    public mutating func addTrack(_ track: MoveTrack, schedule: OpenLoopSchedule) -> Int {
        tracks.append(track)
        schedules.append(schedule)
        for r in lastSeen.indices { lastSeen[r].append(-1) }
        return tracks.count - 1
    }

    /// The schedule track `number` is dragged on.
    public func schedule(ofTrack number: Int) -> OpenLoopSchedule {
        schedules[number]
    }

    /// Receiver `receiver` (a small number from 0, in `group`) saw track
    /// `number` at grid position `position` at time `receipt`.
    public mutating func observe(receiver: Int, track number: Int, position: Int, at receipt: UInt64, group: Int = 0) -> Observation {
        guard tracks.indices.contains(number) else {
            unrelated += 1
            return .notAMove
        }
        let schedule = schedules[number]
        let due = schedule.movesDue(at: receipt)
        guard due > 0, var move = tracks[number].move(fromPosition: position, latest: due - 1) else {
            unrelated += 1
            return .notAMove
        }
        precondition(receiver >= 0, "receivers are numbered from 0")
        while lastSeen.count <= receiver {
            lastSeen.append(Array(repeating: -1, count: schedules.count))
        }
        let seen = lastSeen[receiver][number]
        guard move > seen else {
            repeated += 1
            return .repeated(move: move)
        }
        // Moves reach a receiver in order: of the moves since its last one that
        // share this position's code, take the oldest (the largest latency).
        let period = tracks[number].positions
        if move - period > seen {
            ambiguous += 1
            while move - period > seen { move -= period }
        }
        lastSeen[receiver][number] = move
        let latency = schedule.latency(ofMove: move, receivedAt: receipt)
        total.record(latency)
        interval.record(latency)
        groups[Swift.min(Swift.max(group, 0), groups.count - 1)].record(latency)
        delivered += 1
        return .recorded(move: move, latency: latency)
    }

    /// The same for a whole state: the track's thumb in it, if on the grid.
    public mutating func observe(receiver: Int, track number: Int, state: ControlState, at receipt: UInt64, group: Int = 0) -> Observation {
        guard tracks.indices.contains(number), let position = tracks[number].position(in: state) else {
            unrelated += 1
            return .notAMove
        }
        return observe(receiver: receiver, track: number, position: position, at: receipt, group: group)
    }

    /// The interval's latencies, leaving the interval empty (the progress line's once-a-second sample).
    public mutating func takeInterval() -> LatencyHistogram {
        let taken = interval
        interval.reset()
        return taken
    }

    /// Forgets everything recorded (not the tracks): the start of the measured window.
    public mutating func resetHistograms() {
        ambiguous = 0
        total.reset()
        interval.reset()
        for g in groups.indices { groups[g].reset() }
    }
}
