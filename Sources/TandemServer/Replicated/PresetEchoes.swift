import TandemCore

/// Read-your-writes for presets in a cluster (docs/presets.md, "In a
/// cluster"). Redis makes a save, rename or delete in one script that also
/// publishes its delta; every node's book changes when it hears that delta,
/// this node's too. The script's answer and its delta come on two
/// connections, in either order, so an answer sent on the script's reply
/// alone could reach a client before this node's book held the change, and
/// a read right after it (`GET …/presets/{name}`) would miss it.
///
/// So a change waits for both: `expect` before the script is sent,
/// `heard` when a delta arrives (the first expected one with the same bytes),
/// `replied` with the answer once Redis answered. The answer goes when both
/// have happened, or `patience` seconds after the reply when the delta does
/// not come (the bus down: the change is made, the book is read afresh later).
struct PresetEchoes {
    /// How long an answer waits for its delta after Redis' reply, in seconds.
    static let patience = 2.0
    /// How long an expected delta whose script never answered is kept, in seconds.
    static let forgetAfter = 30.0

    private struct Entry {
        let note: [UInt8]
        /// Whether the delta only starts with `note` (a rename's: the script appends the value it moved).
        let prefix: Bool
        let since: Moment
        var heard = false
        var replied: Moment?
        var answer: (() -> Void)?

        func matches(_ delta: [UInt8]) -> Bool {
            prefix ? delta.starts(with: note) : delta == note
        }
    }

    private var entries: [Int: Entry] = [:]
    private var nextToken = 0

    var count: Int { entries.count }

    /// A change whose delta will be `note` (or start with it, `prefix`); its token for `replied`/`cancel`.
    mutating func expect(_ note: [UInt8], prefix: Bool = false, at now: Moment) -> Int {
        nextToken += 1
        entries[nextToken] = Entry(note: note, prefix: prefix, since: now)
        return nextToken
    }

    /// A delta heard on the bus: the answer now due, if the change it ends had been answered by Redis.
    mutating func heard(_ delta: [UInt8]) -> (() -> Void)? {
        guard let token = entries.filter({ !$0.value.heard && $0.value.matches(delta) }).keys.min() else { return nil }
        guard let answer = entries[token]?.answer else {
            entries[token]?.heard = true
            return nil
        }
        entries[token] = nil
        return answer
    }

    /// Redis made change `token`: `answer` is returned to be called now if its
    /// delta was heard already, else kept until it is (or until `patience` passes).
    mutating func replied(_ token: Int, at now: Moment, _ answer: @escaping () -> Void) -> (() -> Void)? {
        guard let entry = entries[token] else { return answer }
        if entry.heard {
            entries[token] = nil
            return answer
        }
        entries[token]?.replied = now
        entries[token]?.answer = answer
        return nil
    }

    /// Change `token` was not made (refused, or Redis failed): no delta will come.
    mutating func cancel(_ token: Int) {
        entries[token] = nil
    }

    /// The answers whose delta did not come within `patience` of Redis' reply, in order.
    mutating func overdue(at now: Moment) -> [() -> Void] {
        var due: [() -> Void] = []
        for token in entries.keys.sorted() {
            guard let entry = entries[token] else { continue }
            if let replied = entry.replied, now.seconds(since: replied) >= Self.patience {
                entries[token] = nil
                if let answer = entry.answer { due.append(answer) }
            } else if entry.replied == nil, now.seconds(since: entry.since) >= Self.forgetAfter {
                entries[token] = nil
            }
        }
        return due
    }
}
