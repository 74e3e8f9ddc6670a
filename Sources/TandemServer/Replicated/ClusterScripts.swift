import TandemRedis

/// The Lua scripts through which a node takes, keeps and uses a room's lease
/// (docs/scale-out.md, "Ownership"). Redis runs each atomically, so the
/// check of the lease and the write it guards cannot be separated: a node
/// whose lease lapsed (paused, cut off) has every write refused by Redis
/// itself, and steps down.
///
/// A lease's value is `NODE EPOCH`; the epoch comes from the room's counter,
/// which only goes up, so two owners of one room never share an epoch.
enum ClusterScripts {
    /// The answer of `acquire`, `renew` and `writeTurn`: whether the lease is
    /// (still) this node's, and its holder's `NODE EPOCH` (empty: nobody);
    /// `nil` for anything else (an error reply, Redis gone).
    static func answer(_ reply: RedisReply) -> (granted: Bool, holder: String)? {
        guard let items = reply.elements, items.count == 2, let granted = items[0].int, let holder = items[1].string else { return nil }
        return (granted == 1, holder)
    }

    /// KEYS: lease, epoch. ARGV: node, lease ms.
    /// Returns `{1, "NODE EPOCH"}` when this node now holds the lease,
    /// `{0, "NODE EPOCH"}` (the holder) when another does.
    static let acquire = RedisScript("""
        local holder = redis.call('GET', KEYS[1])
        if holder then return {0, holder} end
        local epoch = redis.call('INCR', KEYS[2])
        local value = ARGV[1] .. ' ' .. epoch
        redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
        return {1, value}
        """)

    /// KEYS: lease. ARGV: "NODE EPOCH", lease ms.
    /// Returns `{1, ""}` when renewed, `{0, holder or ""}` when the lease is no longer ours.
    static let renew = RedisScript("""
        local holder = redis.call('GET', KEYS[1])
        if holder ~= ARGV[1] then return {0, holder or ''} end
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return {1, ''}
        """)

    /// KEYS: lease. ARGV: "NODE EPOCH". Gives the lease up if it is ours.
    static let release = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
        return 0
        """)

    /// One turn of an owner: its commits and its publication, fenced.
    ///
    /// KEYS: lease, room, log. ARGV: "NODE EPOCH", the out channel, the
    /// publication (may be empty), the room revision after the turn, the
    /// number of commit rows, then six values per row: revision, control,
    /// state, client, name, time (Unix ms).
    ///
    /// Each log entry also keeps the epoch of the owner that wrote it (`epoch`).
    ///
    /// Returns `{1, ""}` when written and published; `{0, holder or ""}` when
    /// the lease is not ours (nothing written); an error reply when a
    /// revision is not new (nothing written).
    static let writeTurn = RedisScript("""
        local holder = redis.call('GET', KEYS[1])
        if holder ~= ARGV[1] then return {0, holder or ''} end
        local rows = tonumber(ARGV[5])
        if rows > 0 then
          local stored = tonumber(redis.call('HGET', KEYS[2], 'revision') or '0')
          local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
          if #last > 0 then
            local logged = tonumber(string.match(last[1][1], '^(%d+)'))
            if logged > stored then stored = logged end
          end
          local i = 6
          for n = 1, rows do
            local revision = tonumber(ARGV[i])
            if revision <= stored then
              return redis.error_reply('revision ' .. revision .. ' is not new: the room is at ' .. stored)
            end
            i = i + 6
          end
          local epoch = string.match(ARGV[1], '(%d+)$') or '0'
          local previous, k = -1, 0
          i = 6
          for n = 1, rows do
            local revision = ARGV[i]
            if revision == previous then k = k + 1 else k = 0 end
            previous = revision
            redis.call('XADD', KEYS[3], revision .. '-' .. k, 'control', ARGV[i + 1], 'state', ARGV[i + 2],
                       'client', ARGV[i + 3], 'name', ARGV[i + 4], 'time', ARGV[i + 5], 'epoch', epoch)
            redis.call('HSET', KEYS[2], 's:' .. ARGV[i + 1], ARGV[i + 2], 'r:' .. ARGV[i + 1], revision,
                       'b:' .. ARGV[i + 1], ARGV[i + 3])
            i = i + 6
          end
          redis.call('HSET', KEYS[2], 'revision', ARGV[4])
        end
        if #ARGV[3] > 0 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
        return {1, ''}
        """)
}

// MARK: presets

/// The scripts through which a node changes a room's presets (docs/presets.md,
/// "In a cluster"): the check (the per-room limit, a name taken or missing),
/// the write and the delta every node applies happen in one step, so that
/// saves from any number of nodes cannot pass the limit together, and the
/// deltas go out in the order the hash changed.
extension ClusterScripts {
    /// KEYS: presets. ARGV: name, stored value, most presets, channel, delta.
    /// Returns 1 (a new name), 2 (replaced) or 0 (the room is full; nothing written).
    static let savePreset = RedisScript("""
        local exists = redis.call('HEXISTS', KEYS[1], ARGV[1])
        if exists == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
        redis.call('PUBLISH', ARGV[4], ARGV[5])
        if exists == 1 then return 2 end
        return 1
        """)

    /// KEYS: presets. ARGV: name, new name, channel, the delta's start (the value moved is appended).
    /// Returns 1 (renamed, or the same name), 0 (no such preset) or -1 (the new name is taken).
    static let renamePreset = RedisScript("""
        local value = redis.call('HGET', KEYS[1], ARGV[1])
        if not value then return 0 end
        if ARGV[1] == ARGV[2] then return 1 end
        if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then return -1 end
        redis.call('HDEL', KEYS[1], ARGV[1])
        redis.call('HSET', KEYS[1], ARGV[2], value)
        redis.call('PUBLISH', ARGV[3], ARGV[4] .. value)
        return 1
        """)

    /// KEYS: presets. ARGV: name, channel, delta. Returns 1 (deleted) or 0 (no such preset).
    static let deletePreset = RedisScript("""
        if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        return 1
        """)
}

extension ClusterScripts {
    /// KEYS: presets. ARGV: a stored name that is not its cleaned name, the cleaned name.
    /// Moves the row under the cleaned name unless a newer preset is there already
    /// (a row written before names were cleaned; docs/presets.md). Returns 1 when there was a row.
    static let rekeyPreset = RedisScript("""
        local value = redis.call('HGET', KEYS[1], ARGV[1])
        if not value then return 0 end
        redis.call('HDEL', KEYS[1], ARGV[1])
        local held = redis.call('HGET', KEYS[1], ARGV[2])
        local function time(v)
          local ok, decoded = pcall(cjson.decode, v)
          if ok and type(decoded) == 'table' and type(decoded.time) == 'number' then return decoded.time end
          return 0
        end
        if not held or time(held) < time(value) then redis.call('HSET', KEYS[1], ARGV[2], value) end
        return 1
        """)
}
