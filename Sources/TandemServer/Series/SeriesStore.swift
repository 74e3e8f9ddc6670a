import TandemCore
import TandemStorage

/// Where a `SeriesBook` keeps its buckets across restarts: the SQLite file
/// (Storage+Series.swift), or Redis in cluster mode (RedisSeriesStore.swift).
/// With `--data :memory:` there is none.
protocol SeriesStore: AnyObject {
    func saveSeries(_ rows: [Storage.SeriesRow]) throws
    /// Control → per tier its stored buckets, for the room's `controls` that keep a series.
    func series(room: String, controls: [String], tiers: [SeriesTier]) throws -> [String: [[SeriesBucket]]]
}

extension Storage: SeriesStore {
    func series(room: String, controls: [String], tiers: [SeriesTier]) throws -> [String: [[SeriesBucket]]] {
        try series(room: room, tiers: tiers) // one table: every control's rows come in one query
    }
}
