import TandemCore
import TandemStorage

/// The owner's timeline snapshots in Redis (`ClusterKeys.snapshots`): what
/// keeps a cluster's reads of a past state bounded (docs/timeline.md, "Cost").
extension ReplicatedRooms {
    /// After a turn's fenced write was sent (on the same connection, so
    /// Redis runs it first): a snapshot at the end of each revision that
    /// brings the rows since the last snapshot to `Storage.snapshotRows` (or
    /// the room's control count when larger), taken from the states this
    /// owner keeps up to date turn by turn; and at the first committing turn
    /// of an ownership, from the authority's states. Each is one fenced script
    /// (`RedisRoomStore.snapshotScript`); one not written makes the next turn write one.
    func snapshotTimeline(_ replica: RoomReplica, commits: [StoredCommit]) {
        guard let authority = replica.authority, let newest = commits.last?.revision else { return }
        let threshold = max(Storage.snapshotRows, authority.schema.controls.count)
        var due: [(revision: Int, states: [String: ControlState])] = []
        if var states = replica.timelineStates {
            replica.timelineStates = nil // mutated in place, not copied
            var rows = replica.timelineRows
            var k = commits.startIndex
            while k < commits.endIndex {
                let revision = commits[k].revision
                var end = k
                while end < commits.endIndex, commits[end].revision == revision {
                    states[commits[end].control] = commits[end].state
                    end += 1
                }
                rows += end - k
                if rows >= threshold {
                    due.append((revision, states))
                    rows = 0
                }
                k = end
            }
            replica.timelineStates = states
            replica.timelineRows = rows
        } else {
            var states: [String: ControlState] = [:]
            for (k, control) in authority.schema.controls.enumerated() where k < authority.room.committed.count {
                states[control.id] = authority.room.committed[k]
            }
            due.append((newest, states))
            replica.timelineStates = states
            replica.timelineRows = 0
        }
        let id = replica.id
        let epoch = replica.epoch
        let cap = Array(String(RedisRoomStore.replayCap(controls: authority.schema.controls.count)).utf8)
        for (revision, states) in due {
            cluster.commands.eval(RedisRoomStore.snapshotScript,
                                  keys: [Array(ClusterKeys.lease(id).utf8), Array(ClusterKeys.log(id).utf8), Array(ClusterKeys.snapshots(id).utf8)],
                                  args: [Array(replica.holder.utf8), Array(String(revision).utf8), Storage.encodeSnapshot(states), cap]) { [weak self] reply in
                guard let self else { return }
                if reply.int == 1 {
                    self.metrics.timeline.snapshots += 1
                } else if replica.epoch == epoch, replica.owned {
                    if reply.isError { self.log.warn("room \(id): timeline snapshot at revision \(revision) not written: \(reply)") }
                    replica.timelineStates = nil
                }
            }
        }
    }
}
