import TandemCore

/// Encodes updates, encoding each change or gesture entry once per stamp and
/// reusing the bytes for every recipient (the "encode once, send many" of
/// docs/architecture.md).
///
/// Every item of a room's change log carries a stamp that grows with every
/// change, and equal stamps mean equal content, so the fragment encoded for
/// one recipient is the fragment for all of them. Use one encoder per room
/// (stamps are counted per room). As a guard against misuse, a cached
/// fragment is reused only when its item is equal to the one being encoded —
/// a comparison is far cheaper than formatting the numbers again — so an
/// encoder shared between rooms, or kept across a room rebuilt from storage,
/// costs misses, never wrong bytes.
public struct UpdateEncoder: Sendable {
    /// The number of cached fragments beyond which the cache is cleared.
    ///
    /// Clearing rather than evicting one by one: stamps only grow, so once
    /// every recipient has moved on an old entry is never needed again, and a
    /// cleared cache only costs re-encoding what is still in flight.
    public let capacity: Int
    /// Fragments reused (for metrics and tests).
    public private(set) var hits = 0
    /// Fragments encoded.
    public private(set) var misses = 0

    private var changes: [UInt64: (item: ControlChange, bytes: [UInt8])] = [:]
    private var gestures: [UInt64: (item: GestureEntry, bytes: [UInt8])] = [:]

    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// The fragments cached now.
    public var cachedFragments: Int { changes.count + gestures.count }

    /// `{"type":"update","rev":43,"ack":17,"changes":[…],"gestures":[…],"joined":[…],"left":["c5"],"present":9}`,
    /// with empty arrays left out (the contract allows it, and most frames
    /// carry one or two of the four). A change has `by` only when known.
    public mutating func encode(_ update: Update) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 128 * (update.changes.count + update.gestures.count) + 64 * update.joined.count + 16 * update.left.count)
        w.append(raw: "{\"type\":\"update\",\"rev\":")
        w.append(int: update.revision)
        w.append(raw: ",\"ack\":")
        w.append(int: update.ack)
        appendTail(update, present: update.present, to: &w)
        return w.bytes
    }

    /// The start of an update frame, up to its `ack` value: `{"type":"update","rev":43,"ack":`.
    /// A fan-out round writes it, the recipient's `ack`, and the round's `tail`.
    public static func head(revision: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 40)
        w.append(raw: "{\"type\":\"update\",\"rev\":")
        w.append(int: revision)
        w.append(raw: ",\"ack\":")
        return w.bytes
    }

    /// The rest of an update frame after its `ack` value, to the closing
    /// brace, with `present` as given (not `update.present`): head, ack and
    /// tail together are the bytes `encode` writes.
    public mutating func tail(_ update: Update, present: Int?) -> [UInt8] {
        var w = JSONWriter(capacity: 32 + 128 * (update.changes.count + update.gestures.count) + 64 * update.joined.count + 16 * update.left.count)
        appendTail(update, present: present, to: &w)
        return w.bytes
    }

    private mutating func appendTail(_ update: Update, present: Int?, to w: inout JSONWriter) {
        if !update.changes.isEmpty {
            w.append(raw: ",\"changes\":")
            w.append(array: update.changes) { $0.append(fragment(for: $1)) }
        }
        if !update.gestures.isEmpty {
            w.append(raw: ",\"gestures\":")
            w.append(array: update.gestures) { $0.append(fragment(for: $1)) }
        }
        if !update.joined.isEmpty {
            w.append(raw: ",\"joined\":")
            w.append(array: update.joined) { $0.append(peer: $1) }
        }
        if !update.left.isEmpty {
            w.append(raw: ",\"left\":")
            w.append(array: update.left) { $0.append(string: $1.rawValue) }
        }
        if let present {
            w.append(raw: ",\"present\":")
            w.append(int: present)
        }
        if let batch = update.batch {
            w.append(raw: ",\"batch\":")
            w.append(batch: batch)
        }
        w.append(byte: ASCII.closeBrace)
    }

    /// Any frame `Room.nextFrame(for:)` returns: a reject or an update.
    public mutating func encode(_ frame: Frame) -> [UInt8] {
        switch frame {
        case let .reject(reject): OutboundEncoder.reject(reject)
        case let .update(update): encode(update)
        }
    }

    /// Drops every cached fragment (the counters stay).
    public mutating func removeAll() {
        changes.removeAll(keepingCapacity: true)
        gestures.removeAll(keepingCapacity: true)
    }

    private mutating func fragment(for change: ControlChange) -> [UInt8] {
        if let cached = changes[change.stamp], cached.item == change {
            hits += 1
            return cached.bytes
        }
        misses += 1
        var w = JSONWriter(capacity: 128)
        w.append(change: change)
        makeRoom()
        changes[change.stamp] = (change, w.bytes)
        return w.bytes
    }

    private mutating func fragment(for gesture: StampedGesture) -> [UInt8] {
        if let cached = gestures[gesture.stamp], cached.item == gesture.entry {
            hits += 1
            return cached.bytes
        }
        misses += 1
        var w = JSONWriter(capacity: 160)
        w.append(gesture: gesture.entry)
        makeRoom()
        gestures[gesture.stamp] = (gesture.entry, w.bytes)
        return w.bytes
    }

    private mutating func makeRoom() {
        if cachedFragments >= capacity { removeAll() }
    }
}
