import TandemCore
import TandemRedis
import TandemStorage

extension ClusterKeys {
    /// The room's timeline snapshots (a stream; entry ids `REVISION-0`,
    /// fields `states`, every control's state as JSON, and `whole`, "1" when
    /// every revision before it can be read too). Written by the owner
    /// (`Server.snapshotTimeline`), fenced; kept with the log.
    static func snapshots(_ id: String) -> String { "tandem:{\(id)}:snaps" }
}

/// The timeline in a cluster, read from Redis' commit log
/// (`tandem:{ROOM}:log`) and the owner's snapshots (`tandem:{ROOM}:snaps`),
/// with bounded reads only: a room at revision R is the newest snapshot at
/// or below R and at most `replayCap` log entries after it (range reads by
/// entry id, O(log n) to find); the summary is one script of at most
/// `marks + 4` seeks. Nothing is proportional to the log's length.
extension RedisRoomStore: TimelineSource {
    /// The most log entries a read replays after a snapshot: the owner
    /// snapshots every `Storage.snapshotRows` rows (or as many as the room
    /// has controls) at exact revisions, and once at its first committing
    /// turn, so a gap past this is a log written before snapshots existed.
    static func replayCap(controls: Int) -> Int {
        4 * max(Storage.snapshotRows, controls)
    }

    func readMoment(room: String, at revision: Int) throws -> TimelineRead {
        let operation = "read room '\(room)' at revision \(revision)"
        let last = try lastLogged(room)
        guard revision >= 0, revision <= last else { return .unknown(last: last) }
        guard revision > 0 else { return .found(TimelineMoment(revision: 0, states: [:])) }
        let snapshot = try newestSnapshot(room, atOrBefore: revision, operation)
        let base = snapshot?.revision ?? 0
        var states = snapshot?.states ?? [:]
        let cap = Self.replayCap(controls: states.count)
        // Every revision logs at least one entry: a gap of more revisions than the cap is known without reading it.
        guard revision - base <= cap else { return try beyondCap(room, revision, last, operation) }
        // The entries after the base up to R, and R's first row for who and when.
        let entries = try logEntries(room, from: base == revision ? revision : base + 1, to: revision, count: cap + 1, operation)
        guard entries.count <= cap else { return try beyondCap(room, revision, last, operation) }
        var moment = TimelineMoment(revision: revision, states: [:])
        for commit in entries {
            if commit.revision > base { states[commit.control] = commit.state }
            if commit.revision == revision, moment.time == nil {
                moment.time = commit.time
                moment.name = commit.name
                moment.client = commit.client
            }
        }
        moment.states = states
        moment.logRowsRead = entries.count
        return .found(moment)
    }

    func readTimeline(room: String, marks: Int) throws -> TimelineSummary {
        let operation = "read the timeline of room '\(room)'"
        let reply = try call([Array("EVAL".utf8), Array(Self.summaryScript.utf8), Array("2".utf8),
                              Array(ClusterKeys.log(room).utf8), Array(ClusterKeys.snapshots(room).utf8),
                              Array(String(max(0, marks)).utf8), Array(String(Self.replayCap(controls: 0)).utf8)], operation)
        guard let parts = reply.elements, parts.count == 5, let first = parts[0].int, let last = parts[1].int,
              let revisions = parts[2].int, let flat = parts[3].elements, let read = parts[4].int else {
            throw ClusterStoreError(operation: operation, reason: "unexpected reply \(reply)")
        }
        var found: [TimelineMark] = []
        var k = 0
        while k + 1 < flat.count {
            if let revision = flat[k].int, let time = flat[k + 1].int { found.append(TimelineMark(revision: revision, time: Int64(time))) }
            k += 2
        }
        var summary = TimelineSummary(first: first, last: last, revisions: revisions, marks: found)
        summary.logRowsRead = read
        return summary
    }

    /// A revision further from its snapshot than the cap (a log written
    /// before snapshots): the newest is the room's committed states, any
    /// other is refused as pruned rather than scanned.
    private func beyondCap(_ room: String, _ revision: Int, _ last: Int, _ operation: String) throws -> TimelineRead {
        if revision == last, let current = try load(room), current.stored.revision == revision {
            var moment = TimelineMoment(revision: revision, states: [:])
            for (k, control) in current.stored.schema.controls.enumerated() { moment.states[control.id] = current.stored.committed[k] }
            return .found(moment)
        }
        return .pruned(first: try firstReadable(room, operation))
    }

    /// The oldest revision a read can show: 0 when the snapshots cover the log
    /// from its start (or a log short enough to replay), else the oldest snapshot.
    private func firstReadable(_ room: String, _ operation: String) throws -> Int {
        let reply = try call([Array("XRANGE".utf8), Array(ClusterKeys.snapshots(room).utf8), Array("-".utf8), Array("+".utf8),
                              Array("COUNT".utf8), Array("1".utf8)], operation)
        guard let entry = reply.elements?.first, let parts = entry.elements, parts.count == 2,
              let id = parts[0].string, let revision = Int(id.split(separator: "-").first ?? "") else {
            return try lastLogged(room)
        }
        return parts[1].fields["whole"] == Array("1".utf8) ? 0 : revision
    }

    private func newestSnapshot(_ room: String, atOrBefore revision: Int, _ operation: String) throws
        -> (revision: Int, states: [String: ControlState])? {
        // An end id without a sequence number means REVISION-(max): every snapshot at or below it.
        let reply = try call([Array("XREVRANGE".utf8), Array(ClusterKeys.snapshots(room).utf8), Array(String(revision).utf8),
                              Array("-".utf8), Array("COUNT".utf8), Array("1".utf8)], operation)
        guard let entry = reply.elements?.first, let parts = entry.elements, parts.count == 2,
              let id = parts[0].string, let at = Int(id.split(separator: "-").first ?? "") else { return nil }
        guard let bytes = parts[1].fields["states"], let states = Storage.decodeSnapshot(bytes) else {
            throw ClusterStoreError(operation: operation, reason: "the snapshot at revision \(at) is not a map of control states")
        }
        return (at, states)
    }

    /// The log's entries with revisions `from...to`, oldest first, at most `count`.
    private func logEntries(_ room: String, from: Int, to: Int, count: Int, _ operation: String) throws -> [StoredCommit] {
        let reply = try call([Array("XRANGE".utf8), Array(ClusterKeys.log(room).utf8), Array("\(from)-0".utf8), Array(String(to).utf8),
                              Array("COUNT".utf8), Array(String(count).utf8)], operation)
        return (reply.elements ?? []).compactMap { Self.commit($0, room: room) }
    }

    /// KEYS: log, snapshots. ARGV: marks, replay cap. Returns `{first, last,
    /// revisions, {rev, time, …}, entries read}`: the range from the log's two
    /// ends and the oldest snapshot, and one seek (`XRANGE … COUNT 1`) per mark.
    static let summaryScript = """
        local function field(f, name) for i = 1, #f, 2 do if f[i] == name then return f[i + 1] end end return nil end
        local function rev(id) return tonumber(string.match(id, '^(%d+)')) end
        local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
        if #newest == 0 then return {0, 0, 0, {}, 0} end
        local last = rev(newest[1][1])
        local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
        local read = 2
        local first = 0
        local snap = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
        if #snap > 0 then
          if field(snap[1][2], 'whole') ~= '1' then first = rev(snap[1][1]) end
        elseif rev(oldest[1][1]) > 1 or redis.call('XLEN', KEYS[1]) > tonumber(ARGV[2]) then
          first = last
        end
        local n = tonumber(ARGV[1])
        local marks = {}
        local previous = -1
        for k = 0, n - 1 do
          local target = last
          if n > 1 then target = first + math.floor((last - first) * k / (n - 1) + 0.5) end
          if target > previous then
            local e = redis.call('XRANGE', KEYS[1], string.format('%d-0', target), '+', 'COUNT', 1)
            read = read + 1
            if #e == 0 then break end
            local r = rev(e[1][1])
            if r ~= previous then
              marks[#marks + 1] = r
              marks[#marks + 1] = tonumber(field(e[1][2], 'time') or '0')
              previous = r
            end
          end
        end
        return {first, last, last - rev(oldest[1][1]) + 1, marks, read}
        """

    /// KEYS: lease, log, snapshots. ARGV: "NODE EPOCH", the revision, the
    /// states JSON, the replay cap. Adds the snapshot when the lease is ours,
    /// the log holds the revision and no snapshot is at or after it; `whole`
    /// when every revision before it could be read (the previous snapshot was
    /// whole and the entries between are within the cap, or the log from its
    /// start is). Returns 1 when written, 0 when not.
    static let snapshotScript = RedisScript("""
        local function field(f, name) for i = 1, #f, 2 do if f[i] == name then return f[i + 1] end end return nil end
        local function rev(id) return tonumber(string.match(id, '^(%d+)')) end
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        local at = tonumber(ARGV[2])
        local cap = tonumber(ARGV[4])
        local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
        if #newest == 0 or rev(newest[1][1]) < at then return 0 end
        local top = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
        local whole = '0'
        if #top > 0 then
          local base = rev(top[1][1])
          if base >= at then return 0 end
          if field(top[1][2], 'whole') == '1' then
            local between = redis.call('XRANGE', KEYS[2], string.format('%d-0', base + 1), ARGV[2], 'COUNT', cap + 1)
            if #between <= cap then whole = '1' end
          end
        else
          local oldest = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
          if rev(oldest[1][1]) <= 1 then
            local before = redis.call('XRANGE', KEYS[2], '-', ARGV[2], 'COUNT', cap + 1)
            if #before <= cap then whole = '1' end
          end
        end
        redis.call('XADD', KEYS[3], ARGV[2] .. '-0', 'states', ARGV[3], 'whole', whole)
        return 1
        """)
}
