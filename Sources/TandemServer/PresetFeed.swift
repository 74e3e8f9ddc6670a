import TandemCore

/// How often a room's `presets` list goes out (docs/presets.md, "Limits"):
/// at once for a change after a quiet `interval` (longer after a large list:
/// `bytesPerSecond`), else once, with every change made meanwhile, when the
/// wait since the last list has passed (the housekeeping tick, every 250 ms,
/// sends it). A burst of saves costs
/// each member a few lists a second, and the server an encoding of the list
/// per list sent, not per save.
///
/// In a cluster it also holds each room whose presets are being read from
/// Redis (`ReplicatedRooms+Presets.swift`): the changes heard meanwhile, applied
/// once the read arrives, and what waits for the list.
struct PresetFeed {
    /// The shortest time between two lists of one room, in seconds.
    static let interval = 0.25
    /// What a room's lists may send each member, in bytes a second: a large
    /// list waits longer than `interval` (a list of 1 MiB goes every 2 s at most).
    static let bytesPerSecond = 512.0 * 1024

    /// When each room's list was last sent, and how long the next one waits after it.
    private var lastSent: [String: (at: Moment, wait: Double)] = [:]
    /// Rooms whose list changed since it was last sent.
    private(set) var dirty: Set<String> = []

    /// How long a list of `bytes` holds back the next one.
    static func wait(after bytes: Int) -> Double {
        max(interval, Double(bytes) / bytesPerSecond)
    }

    /// A change of room `id`'s list at `now`: whether to send it now (then
    /// noted as sent; `sent(_:at:bytes:)` notes its size) or later (then noted as waiting).
    mutating func changed(_ id: String, at now: Moment) -> Bool {
        if let last = lastSent[id], now.seconds(since: last.at) < last.wait {
            dirty.insert(id)
            return false
        }
        lastSent[id] = (now, Self.interval)
        dirty.remove(id)
        return true
    }

    /// The rooms whose waiting list is due at `now`; each is noted as sent
    /// once `sent(_:at:bytes:)` is told its size.
    mutating func due(at now: Moment) -> [String] {
        let due = dirty.filter { id in lastSent[id].map { now.seconds(since: $0.at) >= $0.wait } ?? true }.sorted()
        for id in due {
            lastSent[id] = (now, Self.interval)
            dirty.remove(id)
        }
        return due
    }

    /// Notes the size of the list of room `id` just sent at `now`.
    mutating func sent(_ id: String, at now: Moment, bytes: Int) {
        lastSent[id] = (now, Self.wait(after: bytes))
    }

    /// Forgets room `id` (deleted).
    mutating func forget(_ id: String) {
        lastSent[id] = nil
        dirty.remove(id)
        loads[id] = nil
        failures[id] = nil
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

    /// How long after a failed read a room's presets are read again unasked, in seconds.
    static let retry = 5.0
    private var failures: [String: Moment] = [:]

    mutating func failed(_ id: String, at now: Moment) {
        failures[id] = now
    }

    /// Whether room `id`'s presets may be read again unasked (none failed in the last `retry` seconds).
    mutating func mayRetry(_ id: String, at now: Moment) -> Bool {
        guard let at = failures[id] else { return true }
        if now.seconds(since: at) < Self.retry { return false }
        failures[id] = nil
        return true
    }
}
