import TandemCore
import TandemRedis
import TandemStorage

extension ClusterKeys {
    /// One control's series (a hash): field `TIER:SLOT`, value `WIDTH START
    /// MIN MAX LAST COUNT` in decimal. Written by the room's owner; read by
    /// the owner when it takes the room, and by any node answering `GET
    /// …/series/{control}` for a room it does not own. Deleted with the room.
    static func series(_ id: String, _ control: String) -> String { "tandem:{\(id)}:series:\(control)" }
}

/// Series in Redis (docs/series.md, "Cluster mode"): the owner's `SeriesBook`
/// writes the buckets that changed once a tick, without waiting (HSET on
/// the cluster's command connection, answers counted); reads are blocking
/// calls on the store's connection, as the timeline's are. Bounded as in
/// SQLite: a bucket written again replaces its field, so a control's hash
/// holds at most the tiers' capacities (8,340 fields).
final class RedisSeriesStore: SeriesStore {
    private let store: RedisRoomStore
    private let commands: RedisConnection
    /// Writes Redis refused or that failed (each a room's control's buckets of one tick).
    private(set) var failedWrites = 0

    init(store: RedisRoomStore, commands: RedisConnection) {
        self.store = store
        self.commands = commands
    }

    /// `tandem_series_redis_write_failures_total`: the HSETs Redis refused (the metric SeriesBook's
    /// write failures cannot show: these writes do not wait for their answer).
    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_series_redis_write_failures_total", "counter",
                   "Writes of series buckets to Redis that Redis refused (the next change of a bucket writes it again).",
                   [("", failedWrites)])
        return out.text
    }

    func saveSeries(_ rows: [Storage.SeriesRow]) throws {
        var byKey: [String: [[UInt8]]] = [:]
        for row in rows {
            let b = row.bucket
            byKey[ClusterKeys.series(row.room, row.control), default: []] += [
                Array("\(row.tier):\(row.slot)".utf8),
                Array("\(row.width) \(b.start) \(b.min) \(b.max) \(b.last) \(b.count)".utf8),
            ]
        }
        for (key, fields) in byKey {
            commands.send([Array("HSET".utf8), Array(key.utf8)] + fields) { [weak self] reply in
                if case .error = reply { self?.failedWrites += 1 }
            }
        }
    }

    func series(room: String, controls: [String], tiers: [SeriesTier]) throws -> [String: [[SeriesBucket]]] {
        var out: [String: [[SeriesBucket]]] = [:]
        for control in controls {
            let buckets = try read(room: room, control: control, tiers: tiers)
            if buckets.contains(where: { !$0.isEmpty }) { out[control] = buckets }
        }
        return out
    }

    /// One control's stored buckets, per tier; a field whose tier or width is
    /// not one of `tiers` (the tiers changed since) is left out.
    func read(room: String, control: String, tiers: [SeriesTier]) throws(ClusterStoreError) -> [[SeriesBucket]] {
        let reply = try store.call([Array("HGETALL".utf8), Array(ClusterKeys.series(room, control).utf8)],
                                   "read the series of '\(control)' in room '\(room)'")
        var buckets = Array(repeating: [SeriesBucket](), count: tiers.count)
        for (field, value) in reply.fields {
            let place = field.split(separator: ":")
            let parts = String(decoding: value, as: UTF8.self).split(separator: " ")
            guard place.count == 2, let tier = Int(place[0]), tiers.indices.contains(tier), parts.count == 6,
                  Int64(parts[0]) == tiers[tier].width, let start = Int64(parts[1]), let min = Double(parts[2]),
                  let max = Double(parts[3]), let last = Double(parts[4]), let count = Int(parts[5]) else { continue }
            buckets[tier].append(SeriesBucket(start: start, min: min, max: max, last: last, count: count))
        }
        for t in buckets.indices { buckets[t].sort { $0.start < $1.start } }
        return buckets
    }

    /// Deletes the series of `controls` of room `id` (the room is deleted).
    func delete(room id: String, controls: [String]) throws(ClusterStoreError) {
        guard !controls.isEmpty else { return }
        _ = try store.call([Array("DEL".utf8)] + controls.map { Array(ClusterKeys.series(id, $0).utf8) }, "delete the series of room '\(id)'")
    }
}
