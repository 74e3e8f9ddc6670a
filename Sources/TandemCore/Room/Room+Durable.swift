/// A room's committed part as storage last wrote it, for a server that
/// withholds frames until a turn's commits are written (`withholdFrames`):
/// when that write fails, the room goes back to it (`rollBack`) and every
/// message whose commit was not written is refused, so that no `ack` ever
/// stands for a commit that is not in storage.
///
/// Only the committed part goes back: members, their `seq`s and acks, the
/// live gestures and the change log stay as they are, so the messages of
/// the turn that committed nothing (drags in release mode, joins, leaves)
/// keep their effects and acks.
public struct DurablePoint: Sendable {
    /// A processed message of a member that made at least one commit since the point.
    struct Writer: Sendable, Hashable {
        var client: ClientID
        var seq: Int
    }

    var revision: Int
    var committed: [ControlState]
    var revisions: [Int]
    var committedBy: [ClientID?]
    /// The change-log stamp at the point: entries stamped after it were made since.
    var stamp: UInt64
    /// The undo histories, as they were at the point, of the members whose history changed since.
    var histories: [ClientID: EditHistory] = [:]
    /// The messages that committed since the point, oldest first.
    var writers: [Writer] = []
}

extension Room {
    /// Takes the room's committed part as written: from now on the room
    /// remembers it, and what changes it, until the next mark or `rollBack`.
    /// A server with storage calls it when it builds the room and after every
    /// successful write of the room's commits; without a mark nothing is kept.
    public mutating func markDurable() {
        durable = DurablePoint(revision: revision, committed: committed, revisions: revisions,
                               committedBy: committedBy, stamp: log.stamp)
    }

    /// Whether the room has commits since its last `markDurable`.
    public var hasUnwrittenCommits: Bool {
        durable.map { $0.revision != revision } ?? false
    }

    /// Puts the committed part back where the last `markDurable` left it,
    /// because storage could not write what came since: the revision, every
    /// control's committed state, revision and author, and the undo history of
    /// each member who edited since. Each member message that committed
    /// since gets a reject (`code`, `message`), queued ahead of the update
    /// that carries its `ack`. Every control put back is in the members' next
    /// update, and the live previews on it are re-evaluated against it as
    /// after any commit (their gesture entries among the effects). The point
    /// stays marked. Without a mark, or with no commit since, nothing happens.
    public mutating func rollBack(code: RejectCode, message: String) -> [Effect] {
        guard let point = durable, point.revision != revision || !point.writers.isEmpty else { return [] }
        var effects: [Effect] = []
        var restored: [Int] = []
        for c in committed.indices where committed[c] != point.committed[c] || revisions[c] != point.revisions[c] {
            committed[c] = point.committed[c]
            revisions[c] = point.revisions[c]
            committedBy[c] = point.committedBy[c]
            log.touch(.control(c))
            restored.append(c)
        }
        revision = point.revision
        for (client, history) in point.histories where members[client] != nil {
            members[client]?.history = history
        }
        var refused: Set<DurablePoint.Writer> = []
        for writer in point.writers where members[writer.client] != nil && refused.insert(writer).inserted {
            let reject = Reject(to: writer.client, seq: writer.seq, code: code, message: message)
            members[writer.client]?.queue(reject, limit: limits.pendingRejects)
            effects.append(.reject(reject))
        }
        for c in restored {
            reconcile(c, except: nil, into: &effects)
            // Entries made since the point showed the state that is gone: they
            // show the displayed state now (nobody got them: frames were withheld).
            let shown = displayed(c)
            for s in slotRange(c) {
                if slots[s].liveEntry != nil, (log.stamp(of: .liveGesture(slot: s)) ?? 0) > point.stamp {
                    slots[s].liveEntry?.state = shown
                }
                if slots[s].endedEntry != nil, (log.stamp(of: .endedGesture(slot: s)) ?? 0) > point.stamp {
                    slots[s].endedEntry?.state = shown
                }
            }
        }
        markDurable()
        return effects
    }

    /// Before `client`'s undo history changes: its history as at the durable point, once.
    mutating func keepDurableHistory(of client: ClientID) {
        guard durable != nil, durable?.histories[client] == nil, let history = members[client]?.history else { return }
        durable?.histories[client] = history
    }
}
