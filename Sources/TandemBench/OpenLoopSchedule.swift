/// When a dragger's moves are due: move `n` at `start + n/hz`, fixed in
/// advance and never shifted by how the server (or the generator) keeps up.
///
/// This is what keeps the bench open-loop. A move that goes out late still
/// counts its latency from its *scheduled* time, so a stall shows up as the
/// latency people would have felt rather than vanishing from the record
/// (coordinated omission). Times are nanoseconds of one monotonic clock.
public struct OpenLoopSchedule: Sendable, Hashable {
    /// When move 0 is due.
    public let start: UInt64
    /// Moves per second.
    public let hz: Double

    /// A schedule of `hz` (finite, above 0) moves a second from `start`.
    public init(start: UInt64, hz: Double) {
        precondition(hz.isFinite && hz > 0, "a schedule needs a rate above 0")
        self.start = start
        self.hz = hz
    }

    /// The time move `n` (from 0) is due: `start + n/hz`, rounded to the nanosecond.
    /// Computed from `n` each time, so no error accumulates over a run.
    public func due(_ n: Int) -> UInt64 {
        precondition(n >= 0, "moves are numbered from 0")
        return start + UInt64((Double(n) * 1e9 / hz).rounded())
    }

    /// The scheduled time of move `n`: what its latency is measured from.
    public func scheduledTime(ofMove n: Int) -> UInt64 { due(n) }

    /// How many moves are due at `now`: the number of `n` with `due(n) <= now`.
    /// The sender sends every due move it has not sent yet.
    public func movesDue(at now: UInt64) -> Int {
        guard now >= start else { return 0 }
        var n = Int((Double(now - start) * hz / 1e9).rounded(.down)) + 1
        while n > 0, due(n - 1) > now { n -= 1 }
        while due(n) <= now { n += 1 }
        return n
    }

    /// The time the next move after `now` is due (for the event loop's timer).
    public func nextDue(after now: UInt64) -> UInt64 { due(movesDue(at: now)) }

    /// From the scheduled time of move `n` to `receipt`; 0 if `receipt` is earlier.
    public func latency(ofMove n: Int, receivedAt receipt: UInt64) -> UInt64 {
        let scheduled = due(n)
        return receipt > scheduled ? receipt - scheduled : 0
    }
}
