import TandemCore
import TandemStorage

/// Where a `SeriesBook` keeps its buckets across restarts: the SQLite file
/// (Storage+Series.swift). With `--data :memory:` there is none.
protocol SeriesStore: AnyObject {
    func saveSeries(_ rows: [Storage.SeriesRow]) throws
    /// Control → per tier its stored buckets.
    func series(room: String, tiers: [SeriesTier]) throws -> [String: [[SeriesBucket]]]
}

extension Storage: SeriesStore {}
