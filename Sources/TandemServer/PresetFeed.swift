import TandemCore

/// How often a room's `presets` list goes out (docs/presets.md, "Limits"):
/// at once for a change after a quiet `interval`, else once, with every
/// change made meanwhile, when the interval since the last list has passed
/// (the housekeeping tick, every 250 ms, sends it). A burst of saves costs
/// each member a few lists a second, and the server an encoding of the list
/// per list sent, not per save.
///
/// In a cluster it also holds each room whose presets are being read from
/// Redis (`Server+ClusterPresets.swift`): the changes heard meanwhile, applied
/// once the read arrives, and what waits for the list.
struct PresetFeed {
    /// The shortest time between two lists of one room, in seconds.
    static let interval = 0.25

    /// When each room's list was last sent.
    private var lastSent: [String: Moment] = [:]
    /// Rooms whose list changed since it was last sent.
    private(set) var dirty: Set<String> = []

    /// A change of room `id`'s list at `now`: whether to send it now (then
    /// noted as sent) or later (then noted as waiting).
    mutating func changed(_ id: String, at now: Moment) -> Bool {
        if let last = lastSent[id], now.seconds(since: last) < Self.interval {
            dirty.insert(id)
            return false
        }
        lastSent[id] = now
        dirty.remove(id)
        return true
    }

    /// The rooms whose waiting list is due at `now` (noted as sent).
    mutating func due(at now: Moment) -> [String] {
        let due = dirty.filter { id in lastSent[id].map { now.seconds(since: $0) >= Self.interval } ?? true }.sorted()
        for id in due {
            lastSent[id] = now
            dirty.remove(id)
        }
        return due
    }

    /// Forgets room `id` (deleted).
    mutating func forget(_ id: String) {
        lastSent[id] = nil
        dirty.remove(id)
        loads[id] = nil
    }

    // MARK: cluster reads

    /// A read of a room's presets from Redis under way.
    struct Load {
        /// Changes heard on the bus since the read was sent, in order.
        var heard: [PresetChangeNote] = []
        /// What waits for the book (`nil`: it could not be read).
        var waiting: [(PresetBook?) -> Void] = []
        /// Whether the read was sent.
        var sent = false
    }

    /// The reads under way, by room.
    var loads: [String: Load] = [:]
}
