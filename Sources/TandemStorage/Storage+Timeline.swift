import CSQLite
import TandemCore
import TandemWire

/// The session timeline: every control's committed state as it was right
/// after any logged revision, read from a snapshot and the commits after it.
///
/// `append` writes a snapshot of all of a room's committed states at every
/// multiple of `snapshotInterval` its commits cross and at the end of each
/// revision that brings the rows since the newest snapshot to `snapshotRows`
/// (or the room's control count), in the same transaction, so a lookup reads
/// one snapshot and at most `maxReplayRows(controls:)` rows of the log,
/// however many rows a revision logs (`TimelineMoment.logRowsRead` says how many). Revision 0 is the room's initial moment: with no snapshot
/// below a revision, its states are replayed from the empty map (every
/// control at its initial state), which is how rooms whose log began before
/// snapshots existed (storage schema 1) are read.
///
/// "Initial" is the *current* schema's initial state: the file keeps no old
/// schemas, so a control never committed by a revision shows the `state` the
/// room file gives it now, and `TimelineMoment.controls(in:)` fits every
/// stored state to the current schema (a control added since takes its
/// initial state; one removed is left out; a state that no longer fits a
/// retyped or re-bounded control is replaced by its initial state, as
/// `loadRooms` does).
///
/// Retention: before `prune` deletes commits, a snapshot is written at the
/// newest revision it removes, so the revisions left stay readable; older
/// snapshots go with their commits. A revision whose commits are gone (and
/// that no snapshot covers) is `pruned`.
extension Storage {
    /// Revisions between two snapshots.
    public static let snapshotInterval = 500
    /// Log rows after a snapshot that make the next one (a batch logs a row
    /// per control: 500 revisions of 256-control recalls were 128,000 rows to
    /// replay before); a room with more controls snapshots every as many rows
    /// as it has controls, so a snapshot never costs more than the rows it saves.
    public static let snapshotRows = 1000

    /// The most log rows a read of a room with `controls` controls replays:
    /// below the threshold, plus the rows of the revision that reached it
    /// (at most one per control). Reading rev R costs one snapshot and this.
    public static func maxReplayRows(controls: Int) -> Int {
        max(snapshotRows, controls) - 1 + max(controls, 1)
    }

    // MARK: reading

    /// Every control's committed state right after `revision`, as logged (by
    /// control id, not yet fitted to a schema); `nil` when the revision is
    /// unknown or pruned. See `moment(room:at:)` for which.
    public func states(room: String, atRevision revision: Int) throws(StorageError) -> [String: ControlState]? {
        if case let .found(moment) = try moment(room: room, at: revision) { return moment.states }
        return nil
    }

    /// The room as it was right after `revision`, who made that revision and when.
    public func moment(room: String, at revision: Int) throws(StorageError) -> TimelineRead {
        let operation = "read room '\(room)' at revision \(revision)"
        return try read(operation) { () throws(StorageError) in
            let bounds = try logBounds(room, operation)
            guard revision >= 0, revision <= bounds.last else { return .unknown(last: bounds.last) }
            guard var moment = try replay(room, to: revision, minLogged: bounds.min, operation) else {
                return .pruned(first: try first(room, bounds, operation))
            }
            if revision > 0 {
                try run(.revisionRow, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, room), s.bind(2, revision))
                    if try step(s, operation) {
                        moment.time = s.int64(0)
                        moment.name = s.text(1)
                        moment.client = s.text(2)
                    }
                }
            }
            return .found(moment)
        }
    }

    /// The range of revisions the timeline can show, and up to `marks` of them
    /// evenly spread with their times (for a slider's labels).
    public func timeline(room: String, marks: Int = 200) throws(StorageError) -> TimelineSummary {
        let operation = "read the timeline of room '\(room)'"
        return try read(operation) { () throws(StorageError) in
            let bounds = try logBounds(room, operation)
            let first = try first(room, bounds, operation)
            var found: [TimelineMark] = []
            var seeks = 2 // the log's two ends
            let count = max(0, marks)
            if count > 0, bounds.min != nil {
                let span = bounds.last - first
                for k in 0..<count {
                    let target = count == 1 ? bounds.last : first + Int((Double(span) * Double(k) / Double(count - 1)).rounded())
                    if let last = found.last, target <= last.revision { continue }
                    let mark = try run(.markFrom, operation) { s throws(StorageError) -> TimelineMark? in
                        try bound(operation, s.bind(1, room), s.bind(2, target))
                        return try step(s, operation) ? TimelineMark(revision: s.int(0), time: s.int64(1)) : nil
                    }
                    guard let mark else { break }
                    seeks += 1
                    if mark.revision != found.last?.revision { found.append(mark) }
                }
            }
            var summary = TimelineSummary(first: first, last: bounds.last, revisions: bounds.count, marks: found)
            summary.logRowsRead = seeks
            return summary
        }
    }

    /// The oldest revision the timeline can show: 0 when the log is whole
    /// from revision 1, else the oldest snapshot that the log continues from.
    private func first(_ room: String, _ bounds: LogBounds, _ operation: String) throws(StorageError) -> Int {
        guard let min = bounds.min, min > 1 else {
            guard bounds.min == nil else { return 0 }
            // Nothing logged (all pruned): only a snapshot can say anything.
            return try newestSnapshot(room, atOrBefore: Int.max, operation)?.revision ?? 0
        }
        let snapshot = try run(.firstSnapshotFrom, operation) { s throws(StorageError) -> Int? in
            try bound(operation, s.bind(1, room), s.bind(2, min - 1))
            guard try step(s, operation), sqlite3_column_type(s.handle, 0) != SQLITE_NULL else { return nil }
            return s.int(0)
        }
        return Swift.min(snapshot ?? bounds.last, bounds.last)
    }

    /// The states after `revision`: the newest snapshot at or below it, then
    /// the logged commits after that snapshot. `nil` when commits between the
    /// two were pruned. The last logged revision is also read from the
    /// committed states when the log before it is gone (a file pruned before
    /// prunes wrote snapshots).
    private func replay(_ room: String, to revision: Int, minLogged: Int?, _ operation: String) throws(StorageError) -> TimelineMoment? {
        let snapshot = try newestSnapshot(room, atOrBefore: revision, operation)
        let base = snapshot?.revision ?? 0
        var states = snapshot?.states ?? [:]
        var rows = 0
        if base < revision {
            // The log must hold every revision after the base: it starts at base + 1 or earlier.
            guard let minLogged, minLogged <= base + 1 else {
                guard let current = try currentStates(room, ifAt: revision, operation) else { return nil }
                return TimelineMoment(revision: revision, states: current)
            }
            try run(.commitsBetween, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, room), s.bind(2, base), s.bind(3, revision))
                while try step(s, operation) {
                    rows += 1
                    guard let state = s.withBytes(2, { StateCodec.decode($0) }) else {
                        throw refusal(operation, "the state of revision \(s.int(0)) is not a control state: \(s.text(2))")
                    }
                    states[s.text(1)] = state
                }
            }
        }
        var moment = TimelineMoment(revision: revision, states: states)
        moment.logRowsRead = rows
        return moment
    }

    /// The `controls` table, when the room's stored revision is `revision`.
    private func currentStates(_ room: String, ifAt revision: Int, _ operation: String) throws(StorageError) -> [String: ControlState]? {
        guard try roomRevision(room, operation) == revision else { return nil }
        return try committedStates(room, operation)
    }

    private func committedStates(_ room: String, _ operation: String) throws(StorageError) -> [String: ControlState] {
        try run(.selectControls, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room))
            var states: [String: ControlState] = [:]
            while try step(s, operation) {
                if let state = s.withBytes(1, { StateCodec.decode($0) }) { states[s.text(0)] = state }
            }
            return states
        }
    }

    private func newestSnapshot(_ room: String, atOrBefore revision: Int, _ operation: String) throws(StorageError) -> (revision: Int, states: [String: ControlState])? {
        try run(.snapshotAtOrBefore, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room), s.bind(2, revision))
            guard try step(s, operation) else { return nil }
            let at = s.int(0)
            guard let states = s.withBytes(1, { Self.decodeSnapshot($0) }) else {
                throw refusal(operation, "the snapshot at revision \(at) is not a map of control states")
            }
            return (at, states)
        }
    }

    private func logBounds(_ room: String, _ operation: String) throws(StorageError) -> LogBounds {
        func seek(_ sql: SQL) throws(StorageError) -> Int? {
            try run(sql, operation) { s throws(StorageError) in
                try bound(operation, s.bind(1, room))
                return try step(s, operation) ? s.int(0) : nil
            }
        }
        guard let oldest = try seek(.oldestLogged), let newest = try seek(.newestLogged) else {
            return LogBounds(min: nil, last: try newestSnapshot(room, atOrBefore: Int.max, operation)?.revision ?? 0)
        }
        return LogBounds(min: oldest, last: newest)
    }

    // MARK: writing (hooks of append and prune)

    /// From `append`, before it writes the new committed states: a snapshot
    /// at each multiple of `snapshotInterval` the room's revision passes in
    /// `commits`, and at the end of each revision that brings the log rows
    /// since the room's newest snapshot to its threshold (`snapshotRows`, or
    /// the room's control count when larger), taken from the committed
    /// states before them (still in the `controls` table) and the commits up
    /// to it. So a read replays fewer than the threshold plus one revision's rows.
    func snapshotBoundaries(of commits: [StoredCommit], _ operation: String) throws(StorageError) {
        let interval = Self.snapshotInterval
        var rooms: [String] = []
        var byRoom: [String: [StoredCommit]] = [:]
        for commit in commits {
            if byRoom[commit.room] == nil { rooms.append(commit.room) }
            byRoom[commit.room, default: []].append(commit)
        }
        for room in rooms {
            let commits = byRoom[room]!
            guard let before = try roomRevision(room, operation), let after = commits.last?.revision else { continue }
            var tally = try snapshotTally(room, at: before, operation)
            // Where the snapshots go: revision boundaries and row thresholds.
            var at: [Int] = []
            var rows = tally.rows
            var boundary = (before / interval + 1) * interval
            var k = commits.startIndex
            while k < commits.endIndex {
                let r = commits[k].revision
                while boundary < r {
                    at.append(boundary)
                    rows = 0
                    boundary += interval
                }
                var end = k
                while end < commits.endIndex, commits[end].revision == r { end += 1 }
                rows += end - k
                if r == boundary || rows >= tally.threshold {
                    at.append(r)
                    rows = 0
                    if r == boundary { boundary += interval }
                }
                k = end
            }
            if !at.isEmpty {
                var states = try committedStates(room, operation)
                var next = commits.startIndex
                for revision in at {
                    while next < commits.endIndex, commits[next].revision <= revision {
                        states[commits[next].control] = commits[next].state
                        next += 1
                    }
                    try writeSnapshot(room, at: revision, states, operation)
                }
                tally.threshold = max(Self.snapshotRows, states.count)
            }
            tally.revision = after
            tally.rows = rows
            snapshotTallies[room] = tally
        }
    }

    /// The rows since the room's newest snapshot when the room is at
    /// `revision`: remembered from the last append (trusted only when it
    /// left the room at `revision`, so a rolled-back append is not
    /// believed), else counted from the file, at most up to the threshold.
    private func snapshotTally(_ room: String, at revision: Int, _ operation: String) throws(StorageError) -> SnapshotTally {
        if let tally = snapshotTallies[room], tally.revision == revision { return tally }
        let newest = try run(.newestSnapshotRevision, operation) { s throws(StorageError) -> Int in
            try bound(operation, s.bind(1, room))
            return try step(s, operation) ? s.int(0) : 0
        }
        let controls = try run(.controlCount, operation) { s throws(StorageError) -> Int in
            try bound(operation, s.bind(1, room))
            return try step(s, operation) ? s.int(0) : 0
        }
        let threshold = max(Self.snapshotRows, controls)
        let rows = try run(.rowsAfter, operation) { s throws(StorageError) -> Int in
            try bound(operation, s.bind(1, room), s.bind(2, newest), s.bind(3, threshold))
            return try step(s, operation) ? s.int(0) : 0
        }
        return SnapshotTally(revision: revision, rows: rows, threshold: threshold)
    }

    /// From `prune`, before it deletes: a snapshot at the newest revision the
    /// prune removes (or at the last, when it removes all), so what is left
    /// stays readable; then the snapshots below that one go.
    func keepTimelineBase(room: String, keepLast: Int?, olderThanMs: Int64?, from floor: Int = Int.min,
                          _ operation: String) throws(StorageError) {
        let bounds = try logBounds(room, operation)
        guard let oldest = bounds.min else { return }
        let survivor = try run(.pruneSurvivor, operation) { s throws(StorageError) -> Int? in
            try bound(operation, s.bind(1, room), s.bind(2, keepLast.map { max($0, 0) } ?? -1), s.bind(3, olderThanMs ?? Int64.min),
                      s.bind(4, floor))
            guard try step(s, operation), sqlite3_column_type(s.handle, 0) != SQLITE_NULL else { return nil }
            return s.int(0)
        }
        let base = survivor.map { $0 - 1 } ?? bounds.last
        guard base >= oldest else { return } // nothing goes
        if try newestSnapshot(room, atOrBefore: base, operation)?.revision != base,
           let moment = try replay(room, to: base, minLogged: oldest, operation) {
            try writeSnapshot(room, at: base, moment.states, operation)
        }
        try run(.deleteSnapshotsBefore, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room), s.bind(2, base))
            _ = try step(s, operation)
        }
    }

    private func writeSnapshot(_ room: String, at revision: Int, _ states: [String: ControlState], _ operation: String) throws(StorageError) {
        let bytes = Self.encodeSnapshot(states)
        try run(.insertSnapshot, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room), s.bind(2, revision), s.bind(3, bytes))
            _ = try step(s, operation)
        }
    }

    // MARK: snapshot JSON

    /// `{"control id": state, …}` in id order (a stable text for equal maps).
    public static func encodeSnapshot(_ states: [String: ControlState]) -> [UInt8] {
        var out = JSONWriter(capacity: 64 * states.count + 2)
        out.append(raw: "{")
        for (k, id) in states.keys.sorted().enumerated() {
            if k > 0 { out.append(raw: ",") }
            out.append(string: id)
            out.append(raw: ":")
            out.append(state: states[id]!)
        }
        out.append(raw: "}")
        return out.bytes
    }

    public static func decodeSnapshot(_ bytes: some Collection<UInt8>) -> [String: ControlState]? {
        guard case let .object(members)? = try? JSONParser.parse(bytes, maxDepth: 3) else { return nil }
        var states: [String: ControlState] = [:]
        for member in members {
            guard let state = StateCodec.decode(member.value) else { return nil }
            states[member.key] = state
        }
        return states
    }
}

/// What `append` remembers of a room's snapshots: after it left the room at
/// `revision`, `rows` log rows followed the newest snapshot; the next one is
/// due at `threshold`.
struct SnapshotTally {
    var revision: Int
    var rows: Int
    var threshold: Int
}

/// The oldest and newest logged revision of a room.
private struct LogBounds {
    /// `nil`: nothing logged.
    var min: Int?
    /// The newest revision the timeline knows (0 when none).
    var last: Int
    /// The revisions the log spans: a revision's rows are all kept or all
    /// pruned, and a room's revisions follow one another, so no count is
    /// needed (counting would read every row of the room).
    var count: Int { min.map { last - $0 + 1 } ?? 0 }
}

/// What `Storage.moment(room:at:)` found.
public enum TimelineRead: Sendable, Hashable {
    case found(TimelineMoment)
    /// Not a revision of the room: below 0 or after its newest, `last`.
    case unknown(last: Int)
    /// Its commits were pruned from the log; `first` is the oldest readable.
    case pruned(first: Int)
}

/// A room as it was right after one revision.
public struct TimelineMoment: Sendable, Hashable {
    public var revision: Int
    /// Unix ms of the revision; `nil` for 0 and for a revision whose row was pruned.
    public var time: Int64?
    /// Display name and connection of who made it (`nil` as for `time`).
    public var name: String?
    public var client: String?
    /// Every control's state by id, as logged (fit them with `controls(in:)`).
    public var states: [String: ControlState]
    /// The log rows (in a cluster, Redis entries) read to build it after its
    /// snapshot: the read's cost, not part of the value (`==` ignores it).
    public var logRowsRead = 0

    public init(revision: Int, time: Int64? = nil, name: String? = nil, client: String? = nil, states: [String: ControlState]) {
        self.revision = revision
        self.time = time
        self.name = name
        self.client = client
        self.states = states
    }

    /// The states for `schema`'s controls, in schema order: the logged state
    /// when it fits the control now, else its initial state. Controls the
    /// schema no longer has are left out.
    public func controls(in schema: RoomSchema) -> [(id: String, state: ControlState)] {
        schema.controls.map { control in
            if let state = states[control.id].flatMap({ StateCodec.fit($0, to: control.kind) }), control.isValid(state) {
                return (control.id, state)
            }
            return (control.id, control.initial)
        }
    }
}

/// The timeline's range and its marks.
public struct TimelineSummary: Sendable, Hashable {
    /// The oldest revision that can be shown (0: the initial moment).
    public var first: Int
    /// The newest logged revision.
    public var last: Int
    /// How many revisions the log holds.
    public var revisions: Int
    /// At most the asked number, evenly spread from `first` to `last`, oldest first.
    public var marks: [TimelineMark]
    /// The log rows (in a cluster, Redis entries) read to make it: the read's
    /// cost, not part of the value (`==` ignores it).
    public var logRowsRead = 0

    public init(first: Int, last: Int, revisions: Int, marks: [TimelineMark]) {
        self.first = first
        self.last = last
        self.revisions = revisions
        self.marks = marks
    }
}

extension TimelineMoment {
    public static func == (a: Self, b: Self) -> Bool {
        a.revision == b.revision && a.time == b.time && a.name == b.name && a.client == b.client && a.states == b.states
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(revision)
        hasher.combine(time)
        hasher.combine(name)
        hasher.combine(client)
        hasher.combine(states)
    }
}

extension TimelineSummary {
    public static func == (a: Self, b: Self) -> Bool {
        a.first == b.first && a.last == b.last && a.revisions == b.revisions && a.marks == b.marks
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(first)
        hasher.combine(last)
        hasher.combine(revisions)
        hasher.combine(marks)
    }
}

/// A logged revision and its Unix ms time.
public struct TimelineMark: Sendable, Hashable {
    public var revision: Int
    public var time: Int64

    public init(revision: Int, time: Int64) {
        self.revision = revision
        self.time = time
    }
}
