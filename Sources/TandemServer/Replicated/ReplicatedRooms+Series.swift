import TandemCore
import TandemStorage

/// Series in a cluster (docs/series.md, "Cluster mode"): the room's owner
/// keeps them, fed with the commits Redis took from its turns, and writes
/// the buckets that changed to Redis once a tick; it reads them back when it
/// takes the room. A node asked for a room it does not own reads Redis.
extension ReplicatedRooms {
    /// The owner took room `schema`: its series go on from what Redis holds.
    func loadSeries(_ schema: RoomSchema) {
        do {
            try series.load(schema)
        } catch {
            log.error("room \(schema.id): its series could not be read from redis, they start empty: \(error)")
        }
    }

    /// Records `commits` of room `id`, written by this owner's turn.
    func recordSeries(_ commits: [StoredCommit], room id: String) {
        guard series.holds(id), let schema = cluster.replicas[id]?.authority?.schema else { return }
        for commit in commits {
            guard let index = schema.index(of: commit.control) else { continue }
            series.record(commit.state, of: schema.controls[index], in: id, at: commit.time)
        }
    }

    /// Writes what changed, then forgets the rooms this node no longer owns
    /// (the new owner reads them from Redis).
    func flushSeries() {
        do {
            try series.flush()
        } catch {
            log.error("series: \(series.unwrittenCount) bucket(s) could not be written: \(error)")
        }
        for id in series.roomIDs where cluster.replicas[id]?.owned != true { series.forget(id) }
    }

    /// The points of a control's series: from memory on its owner, else from Redis.
    func clusterSeriesPoints(room: String, control: String, from: Int64?, to: Int64, limit: Int) throws -> SeriesPoints {
        if series.holds(room), cluster.replicas[room]?.owned == true,
           let points = series.points(room: room, control: control, from: from, to: to, limit: limit) {
            return points
        }
        let stored = try seriesStore.read(room: room, control: control, tiers: series.tiers)
        return Series(tiers: series.tiers, restoring: stored).points(from: from, to: to, limit: limit)
    }
}
