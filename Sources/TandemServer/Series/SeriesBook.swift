import TandemCore
import TandemStorage

/// Every room's series in memory (docs/series.md): one `Series` per control
/// that keeps one, fed with each durable commit, and the buckets that
/// changed since they were last written to the store (`flush`, once a
/// tick). Bounded: at most the tiers' capacities per control, whatever the
/// publish rate; a bucket written again replaces its place.
final class SeriesBook {
    let tiers: [SeriesTier]
    private let store: SeriesStore?
    private var rooms: [String: [String: Series]] = [:]
    /// Buckets to write, by where they go.
    private var dirty: [Place: SeriesBucket] = [:]
    /// Values recorded since start, and writes that failed (kept for the next flush).
    private(set) var recorded = 0
    private(set) var writeFailures = 0

    private struct Place: Hashable {
        var room: String
        var control: String
        var tier: Int
        var slot: Int
    }

    init(store: SeriesStore?, tiers: [SeriesTier] = SeriesTier.standard) {
        self.store = store
        self.tiers = tiers
    }

    /// Starts (or, after a schema change, restarts) the series of `schema`'s
    /// controls that keep one, from what the store holds of them, else from
    /// what memory held (a room replaced without a file), else empty.
    func load(_ schema: RoomSchema) throws {
        let stored = try store?.series(room: schema.id, controls: schema.controls.filter(\.keepsSeries).map(\.id), tiers: tiers) ?? [:]
        let held = rooms[schema.id] ?? [:]
        var series: [String: Series] = [:]
        for control in schema.controls where control.keepsSeries {
            if let buckets = stored[control.id] {
                series[control.id] = Series(tiers: tiers, restoring: buckets)
            } else {
                series[control.id] = held[control.id] ?? Series(tiers: tiers)
            }
        }
        rooms[schema.id] = series
    }

    /// Whether the book holds room `id`'s series (`load` ran for it).
    func holds(_ id: String) -> Bool { rooms[id] != nil }

    /// The rooms whose series the book holds.
    var roomIDs: [String] { Array(rooms.keys) }

    /// Forgets room `id` (deleted: the store forgot its rows with it; or, in
    /// a cluster, no longer owned: `flush` first, so nothing is lost).
    func forget(_ id: String) {
        rooms[id] = nil
        dirty = dirty.filter { $0.key.room != id }
    }

    /// Records `control`'s committed `state` at `time` (Unix ms), if it keeps a series.
    func record(_ state: ControlState, of control: Control, in room: String, at time: Int64) {
        guard control.keepsSeries, let value = control.seriesValue(of: state), rooms[room]?[control.id] != nil else { return }
        let buckets = rooms[room]![control.id]!.add(value, at: time)
        recorded += 1
        guard store != nil else { return }
        for (tier, bucket) in buckets.enumerated() {
            dirty[Place(room: room, control: control.id, tier: tier, slot: tiers[tier].slot(of: bucket.start))] = bucket
        }
    }

    /// At most `limit` points of the control's series in `[from, to]`; `nil` when it keeps none.
    func points(room: String, control: String, from: Int64?, to: Int64?, limit: Int) -> SeriesPoints? {
        rooms[room]?[control]?.points(from: from, to: to, limit: limit)
    }

    /// Writes the changed buckets; on failure they stay for the next try (newer values overwrite them meanwhile).
    func flush() throws {
        guard let store, !dirty.isEmpty else { return }
        let rows = dirty.map { place, bucket in
            Storage.SeriesRow(room: place.room, control: place.control, tier: place.tier, width: tiers[place.tier].width,
                              slot: place.slot, bucket: bucket)
        }
        do {
            try store.saveSeries(rows)
            dirty.removeAll(keepingCapacity: true)
        } catch {
            writeFailures += 1
            throw error
        }
    }

    /// Series held, buckets held in all of them, and buckets waiting to be written.
    var seriesCount: Int { rooms.values.reduce(0) { $0 + $1.count } }
    var bucketCount: Int { rooms.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.bucketCount } } }
    var unwrittenCount: Int { dirty.count }

    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_series_values_total", "counter", "Committed values recorded into series (gauges, and controls with \"series\": true).",
                   [("", recorded)])
        out.metric("tandem_series", "gauge", "Series held in memory, one per control that keeps one.", [("", seriesCount)])
        out.metric("tandem_series_buckets", "gauge", "Buckets held in memory in all series (at most 8,340 per series).", [("", bucketCount)])
        out.metric("tandem_series_write_failures_total", "counter", "Writes of series buckets to the SQLite file that failed (retried at the next tick).",
                   [("", writeFailures)])
        return out.text
    }
}
