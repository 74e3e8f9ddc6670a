import TandemCore

/// When a room tells its members a count of people that moved quietly
/// (arrivals and departures past --presence-limit wake nobody): every
/// `period` seconds at most, and only when the count moved since it last told.
/// A local room keeps one in its host, an owner in its replica.
struct PresenceRefresh {
    /// Seconds between two refreshes of a room (`Room.refreshPresence`).
    static let period = 2.0

    private var told = 0
    private var at = Moment.zero

    /// Whether `present` is to be told now; if so, it counts as told at `now`.
    mutating func due(_ present: Int, at now: Moment) -> Bool {
        guard present != told, now.seconds(since: at) >= Self.period else { return false }
        (told, at) = (present, now)
        return true
    }

    /// Starts over at `now` with nobody told of (a node that just became the owner).
    mutating func restart(at now: Moment) {
        (told, at) = (0, now)
    }
}
