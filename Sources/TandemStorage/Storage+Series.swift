import TandemCore

/// Series (docs/series.md): per room, control and tier, one row per bucket
/// place (`SeriesTier.slot`), `series(room, control, tier, slot, width,
/// start, min, max, last, count)`. A place is overwritten when its tier
/// wraps, so a control's rows never outnumber its tiers' capacities.
extension Storage {
    /// One bucket to write: where it goes and what it holds.
    public struct SeriesRow: Sendable, Hashable {
        public var room: String
        public var control: String
        public var tier: Int
        public var width: Int64
        public var slot: Int
        public var bucket: SeriesBucket

        public init(room: String, control: String, tier: Int, width: Int64, slot: Int, bucket: SeriesBucket) {
            self.room = room
            self.control = control
            self.tier = tier
            self.width = width
            self.slot = slot
            self.bucket = bucket
        }
    }

    /// Writes `rows` in one transaction.
    public func saveSeries(_ rows: [SeriesRow]) throws(StorageError) {
        guard !rows.isEmpty else { return }
        let operation = "write \(rows.count) series bucket(s)"
        try transaction(operation) { () throws(StorageError) in
            for row in rows {
                try run(.upsertSeriesBucket, operation) { s throws(StorageError) in
                    try bound(operation, s.bind(1, row.room), s.bind(2, row.control), s.bind(3, row.tier), s.bind(4, row.slot),
                              s.bind(5, row.width), s.bind(6, row.bucket.start), s.bind(7, row.bucket.min),
                              s.bind(8, row.bucket.max), s.bind(9, row.bucket.last), s.bind(10, row.bucket.count))
                    _ = try step(s, operation)
                }
            }
        }
    }

    /// The room's stored buckets: control → per tier (index) its buckets, in
    /// no order. A row whose width is not its tier's in `tiers` (written with
    /// other tiers) is left out.
    public func series(room: String, tiers: [SeriesTier] = SeriesTier.standard) throws(StorageError) -> [String: [[SeriesBucket]]] {
        let operation = "load series of room '\(room)'"
        return try run(.selectSeries, operation) { s throws(StorageError) in
            try bound(operation, s.bind(1, room))
            var out: [String: [[SeriesBucket]]] = [:]
            while try step(s, operation) {
                let tier = s.int(1)
                guard tiers.indices.contains(tier), s.int64(2) == tiers[tier].width else { continue }
                let bucket = SeriesBucket(start: s.int64(3), min: s.double(4), max: s.double(5), last: s.double(6), count: s.int(7))
                out[s.text(0), default: Array(repeating: [], count: tiers.count)][tier].append(bucket)
            }
            return out
        }
    }
}
