import TandemCore
import TandemOSC

/// Live previews on their way to OSC: at most one update per thumb per
/// `interval` (1/60 s). An update that comes sooner waits, replaced by any
/// later one, until its thumb's window ends. A pure value: the caller passes the time.
struct PreviewConflator {
    /// One thumb of one control of one room.
    struct Key: Hashable {
        var room: String
        var control: Int
        var thumb: Thumb
    }

    private struct Slot {
        /// When the thumb may send again: a window after its last send.
        var opens: Moment
        var pending: [OSCMessage]?
    }

    /// Seconds between two updates of one thumb.
    let interval: Double
    private var slots: [Key: Slot] = [:]

    init(interval: Double) {
        self.interval = interval
    }

    /// A preview of `key`: its messages to send now, or `nil` when they wait
    /// for the thumb's window to end (then `due` hands them over, unless a
    /// later preview replaced them or the drag ended first).
    mutating func offer(_ key: Key, _ messages: [OSCMessage], at now: Moment) -> [OSCMessage]? {
        if let slot = slots[key], now < slot.opens {
            slots[key]?.pending = messages
            return nil
        }
        slots[key] = Slot(opens: now.adding(seconds: interval), pending: nil)
        return messages
    }

    /// Forgets what waits for `key`'s window: the drag ended or was cancelled,
    /// and what follows (a commit, the committed value) says the last word.
    mutating func finish(_ key: Key) {
        slots[key]?.pending = nil
    }

    /// Forgets what waits for every thumb of a control: its commit goes out now.
    mutating func committed(room: String, control: Int) {
        for key in slots.keys where key.room == room && key.control == control {
            slots[key]?.pending = nil
        }
    }

    /// Forgets a room (deleted or replaced: its control indexes mean something else now).
    mutating func forget(room: String) {
        slots = slots.filter { $0.key.room != room }
    }

    /// The waiting previews whose window ended by `now`, oldest key order not
    /// promised; thumbs idle for a while are forgotten.
    mutating func due(at now: Moment) -> [[OSCMessage]] {
        var out: [[OSCMessage]] = []
        for (key, slot) in slots where now >= slot.opens {
            if let pending = slot.pending {
                out.append(pending)
                slots[key] = Slot(opens: now.adding(seconds: interval), pending: nil)
            } else if now.seconds(since: slot.opens) >= 10 * interval {
                slots[key] = nil
            }
        }
        return out
    }

    /// When the earliest waiting preview is due, if any waits.
    var nextDue: Moment? {
        slots.values.filter { $0.pending != nil }.map(\.opens).min()
    }
}
