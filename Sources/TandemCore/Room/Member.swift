/// One client in a room: who they are, what they may do, and what their next frame owes them.
struct Member: Sendable {
    var peer: Peer
    var role: Role
    /// The highest `seq` seen from this client (ordering check).
    var lastSeq = 0
    /// The highest `seq` processed, sent as `ack`.
    var ack = 0
    /// Whether `ack` moved since the last frame.
    var ackDirty = false
    /// The change-log stamp of this client's last frame.
    var cursor: UInt64
    /// Rejects not yet sent, oldest first, at most `RoomLimits.pendingRejects`.
    var rejects: [Reject] = []
    /// Rejects dropped because too many were pending.
    var droppedRejects = 0
    /// The highest `ack` this client may be sent: one below its oldest
    /// message still unanswered (`ack` is cumulative: it may never stand for
    /// a message that got neither its effect nor a reject). Set by a view
    /// for messages relayed to the room's owner (`Room.holdAck`), and for
    /// good by a dropped reject. `nil`: no limit.
    var ackCeiling: Int?
    /// One below the first reject dropped: a limit for good (the server closes the connection).
    var droppedBelow: Int?
    /// The last `ack` a frame carried: a limit never takes the ack below it.
    var ackSent = 0
    /// The `ack` this client's frames carry.
    var sentAck: Int {
        var value = ack
        if let ackCeiling { value = min(value, ackCeiling) }
        if let droppedBelow { value = min(value, droppedBelow) }
        return value
    }
    /// The log stamp at which this client was announced to the room (its
    /// join, or its promotion from the quiet audience).
    var joinedAt: UInt64
    /// Whether the room announces this client (`joined`, `left`, the welcome's
    /// `peers`); past `RoomLimits.presence` newcomers join quietly.
    var announced: Bool
    /// The number of people present as this client's last frame told it.
    var presentSeen = 0
    var bucket: TokenBucket
    /// The slots this client holds.
    var holds: Set<Int> = []
    /// This client's own edits, to undo and redo.
    var history = EditHistory()
    /// Whether it takes frames. A member that does not (an OSC writer, whose
    /// answers are its effects) has no frame waiting, queues no rejects and
    /// holds no departed peer in the log: nobody needs to read its frames
    /// for the room to move on.
    var takesFrames = true

    /// Takes `seq` as processed: it becomes the `ack` of the next frame.
    mutating func process(seq: Int) {
        lastSeq = seq
        ack = seq
        ackDirty = true
    }

    /// Queues `reject` for the next frame, or counts it dropped past `limit`;
    /// then the `ack` stops below it for good, so that it never stands for a
    /// refused message whose reject was not sent.
    mutating func queue(_ reject: Reject, limit: Int) {
        guard takesFrames else { return }
        if rejects.count < limit {
            rejects.append(reject)
        } else {
            droppedRejects += 1
            // (A reject for a seq already acknowledged — a repeated seq's `bad_message` — holds nothing back.)
            if reject.seq > 0 { droppedBelow = min(droppedBelow ?? Int.max, max(reject.seq - 1, ackSent)) }
        }
    }

    /// Its oldest waiting reject, taken off the queue.
    mutating func takeReject() -> Reject? {
        rejects.isEmpty ? nil : rejects.removeFirst()
    }

    /// Its cursor and `ack`, and whether the ack moved, when it has a frame
    /// waiting (the log's latest stamp is `stamp`); `nil` when it has none.
    /// (Mutating only so that callers reach it in place, without a copy.)
    mutating func pending(upTo stamp: UInt64) -> (cursor: UInt64, ack: Int, acked: Bool)? {
        takesFrames && (ackDirty || cursor < stamp) ? (cursor, sentAck, ackDirty) : nil
    }

    /// After an update up to `stamp` was assembled for it: its cursor moves
    /// there, its ack is sent, and the update carries `present` when it has not heard the count.
    mutating func caughtUp(to stamp: UInt64, present: Int, into update: inout Update) {
        cursor = stamp
        ackDirty = false
        ackSent = update.ack
        if presentSeen != present {
            presentSeen = present
            update.present = present
        }
    }
}
