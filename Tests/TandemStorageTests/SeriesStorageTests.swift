import Testing
import TandemCore
@testable import TandemStorage

/// Series in the SQLite file: one row per bucket place, so a control's rows
/// are bounded by its tiers' capacities (docs/series.md).
@Suite("Series storage")
struct SeriesStorageTests {
    static let t0: Int64 = 1_800_000_000_000

    /// What a store must write after `series.add`: each tier's bucket in its place.
    static func rows(_ buckets: [SeriesBucket], control: String = "bpm", tiers: [SeriesTier] = SeriesTier.standard) -> [Storage.SeriesRow] {
        buckets.enumerated().map { tier, bucket in
            Storage.SeriesRow(room: "demo", control: control, tier: tier, width: tiers[tier].width,
                              slot: tiers[tier].slot(of: bucket.start), bucket: bucket)
        }
    }

    @Test("buckets written as they change read back as the same series")
    func roundTrip() throws {
        try withTempFolder { folder in
            let storage = try Storage(path: folder + "/t.db")
            try storage.saveRoom(.demo)
            var series = Series()
            for i in 0..<3_000 {
                try storage.saveSeries(Self.rows(series.add(Double(i % 17), at: Self.t0 + Int64(i) * 250)))
            }
            let stored = try storage.series(room: "demo")
            #expect(Series(restoring: try #require(stored["bpm"])) == series)
        }
    }

    @Test("a control's rows never outnumber its tiers' capacities, however long it publishes")
    func boundedRows() throws {
        try withTempFolder { folder in
            let path = folder + "/t.db"
            let storage = try Storage(path: path)
            try storage.saveRoom(.demo)
            let tiers = [SeriesTier(width: 1_000, capacity: 5), SeriesTier(width: 10_000, capacity: 3)]
            var series = Series(tiers: tiers)
            for i in 0..<500 { try storage.saveSeries(Self.rows(series.add(1, at: Self.t0 + Int64(i) * 1_000), tiers: tiers)) }
            #expect(try sqliteRows(path, "SELECT count(*) FROM series") == ["8"])
            let stored = try storage.series(room: "demo", tiers: tiers)
            #expect(Series(tiers: tiers, restoring: try #require(stored["bpm"])) == series)
        }
    }

    @Test("rows of other tiers (another width at that index) are left out; deleting the room deletes its series")
    func widthsAndDeletes() throws {
        try withTempFolder { folder in
            let path = folder + "/t.db"
            let storage = try Storage(path: path)
            try storage.saveRoom(.demo)
            var series = Series()
            try storage.saveSeries(Self.rows(series.add(4, at: Self.t0)))
            let other = [SeriesTier(width: 500, capacity: 10)]
            #expect(try storage.series(room: "demo", tiers: other).isEmpty)
            try storage.deleteRoom("demo")
            #expect(try sqliteRows(path, "SELECT count(*) FROM series") == ["0"])
        }
    }
}
