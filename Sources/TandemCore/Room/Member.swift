/// One client in a room: who they are, what they may do, and what their next frame owes them.
///
/// A room keeps one per connection, in a dictionary whose slack multiplies
/// every inline byte, and most members are idle. So what every member uses
/// is stored inline and narrowed (96 bytes, MemberLayoutTests), and what most
/// never use — pending rejects, limits on the `ack`, held thumbs, the undo
/// history, a focus, a colour off the palette — lives in `Extras`, one
/// copy-on-write box allocated only while one of them is set and released
/// when all are back to their defaults. Every part reads and writes as a
/// plain property: a `Member` is a value, and a copy never sees the changes
/// of another.
///
/// Stored fields are laid out in declaration order: the word-sized ones, then
/// `bucket` (17 bytes), whose tail padding holds the byte-sized ones and `presentSeen`.
struct Member: Sendable {
    /// The change-log stamp of this client's last frame.
    var cursor: UInt64
    /// The log stamp at which this client was announced to the room (its
    /// join, or its promotion from the quiet audience).
    var joinedAt: UInt64
    /// The highest `seq` processed, sent as `ack`. A client's own number: a full `Int`.
    var ack = 0
    /// The last `ack` a frame carried: a limit never takes the ack below it.
    var ackSent = 0
    /// `peer`, without what `colorIndex` and `extras` keep of it.
    private var client: ClientID
    private var name: String
    /// The rarely used parts; `nil` while all are at their defaults (a fresh member's).
    private var extras: ExtrasBox?
    var bucket: TokenBucket
    var role: Role
    /// `ackDirty`, `announced` and `takesFrames`, one bit each.
    private var flags: UInt8
    /// `peer.color`'s index in `Peer.palette`, or `offPalette`: then the colour is `extras`'.
    private var colorIndex: UInt8 = 0
    /// `presentSeen`, in 32 bits: it counts connections (the room's, or the
    /// cluster's as the room's authority counts them; never a number a client
    /// sends), which memory keeps far below 2³¹. A count past it would be kept
    /// clamped, and only make the next frame carry `present` again.
    private var presentSeen32: Int32 = 0

    init(peer: Peer, role: Role, cursor: UInt64, joinedAt: UInt64, announced: Bool, bucket: TokenBucket) {
        self.cursor = cursor
        self.joinedAt = joinedAt
        self.client = peer.client
        self.name = peer.name
        self.bucket = bucket
        self.role = role
        self.flags = Flag.takesFrames | (announced ? Flag.announced : 0)
        self.peer = peer
    }

    // MARK: inline, narrowed

    /// The highest `seq` seen from this client (ordering check). Stored once,
    /// as `ack`: a seq that passes the ordering check is processed at once
    /// (`process(seq:)`), and everything else that sets one sets the other to
    /// the same value, so the two never differ.
    var lastSeq: Int {
        get { ack }
        set { ack = newValue }
    }

    /// Whether `ack` moved since the last frame.
    var ackDirty: Bool {
        get { flags & Flag.ackDirty != 0 }
        set { set(Flag.ackDirty, newValue) }
    }

    /// Whether the room announces this client (`joined`, `left`, the welcome's
    /// `peers`); past `RoomLimits.presence` newcomers join quietly.
    var announced: Bool {
        get { flags & Flag.announced != 0 }
        set { set(Flag.announced, newValue) }
    }

    /// Whether it takes frames. A member that does not (an OSC writer, whose
    /// answers are its effects) has no frame waiting, queues no rejects and
    /// holds no departed peer in the log: nobody needs to read its frames
    /// for the room to move on.
    var takesFrames: Bool {
        get { flags & Flag.takesFrames != 0 }
        set { set(Flag.takesFrames, newValue) }
    }

    /// The number of people present as this client's last frame told it.
    var presentSeen: Int {
        get { Int(presentSeen32) }
        set { presentSeen32 = Int32(clamping: newValue) }
    }

    /// Who they are, as others see them.
    var peer: Peer {
        get { Peer(client: client, name: name, color: color, focus: extras?.value.focus) }
        set {
            client = newValue.client
            name = newValue.name
            color = newValue.color
            focus = newValue.focus
        }
    }

    private var color: String {
        get {
            colorIndex == Self.offPalette ? extras?.value.color ?? "" : Peer.palette[Int(colorIndex)]
        }
        set {
            if let i = Peer.palette.firstIndex(of: newValue), let index = UInt8(exactly: i), index != Self.offPalette {
                colorIndex = index
                if extras?.value.color != nil { modifyExtras { $0.color = nil } }
            } else {
                colorIndex = Self.offPalette
                modifyExtras { $0.color = newValue }
            }
        }
    }

    private static let offPalette = UInt8.max

    private enum Flag {
        static let ackDirty: UInt8 = 1
        static let announced: UInt8 = 2
        static let takesFrames: UInt8 = 4
    }

    private mutating func set(_ flag: UInt8, _ on: Bool) {
        if on { flags |= flag } else { flags &= ~flag }
    }

    // MARK: out of line

    private var focus: String? {
        get { extras?.value.focus }
        set {
            guard newValue != nil || extras?.value.focus != nil else { return }
            modifyExtras { $0.focus = newValue }
        }
    }

    /// Rejects not yet sent, oldest first, at most `RoomLimits.pendingRejects`.
    var rejects: [Reject] {
        get { extras?.value.rejects ?? [] }
        _modify {
            makeExtrasUnique()
            defer { releaseExtrasIfEmpty() }
            yield &extras!.value.rejects
        }
    }

    /// Rejects dropped because too many were pending.
    var droppedRejects: Int {
        get { extras?.value.droppedRejects ?? 0 }
        _modify {
            makeExtrasUnique()
            defer { releaseExtrasIfEmpty() }
            yield &extras!.value.droppedRejects
        }
    }

    /// The highest `ack` this client may be sent: one below its oldest
    /// message still unanswered (`ack` is cumulative: it may never stand for
    /// a message that got neither its effect nor a reject). Set by a view
    /// for messages relayed to the room's owner (`Room.holdAck`), and for
    /// good by a dropped reject. `nil`: no limit.
    var ackCeiling: Int? {
        get { extras?.value.ackCeiling }
        _modify {
            makeExtrasUnique()
            defer { releaseExtrasIfEmpty() }
            yield &extras!.value.ackCeiling
        }
    }

    /// One below the first reject dropped: a limit for good (the server closes the connection).
    var droppedBelow: Int? {
        get { extras?.value.droppedBelow }
        _modify {
            makeExtrasUnique()
            defer { releaseExtrasIfEmpty() }
            yield &extras!.value.droppedBelow
        }
    }

    /// The slots this client holds.
    var holds: Set<Int> {
        get { extras?.value.holds ?? [] }
        _modify {
            makeExtrasUnique()
            defer { releaseExtrasIfEmpty() }
            yield &extras!.value.holds
        }
    }

    /// This client's own edits, to undo and redo.
    var history: EditHistory {
        get { extras?.value.history ?? EditHistory() }
        _modify {
            makeExtrasUnique()
            defer { releaseExtrasIfEmpty() }
            yield &extras!.value.history
        }
    }

    /// Whether the out-of-line parts are allocated (for tests: a fresh or idle member has none).
    var hasExtras: Bool { extras != nil }

    /// Changes the out-of-line parts, copying them first when another member shares them.
    private mutating func modifyExtras(_ change: (inout Extras) -> Void) {
        makeExtrasUnique()
        defer { releaseExtrasIfEmpty() }
        change(&extras!.value)
    }

    private mutating func makeExtrasUnique() {
        if extras == nil {
            extras = ExtrasBox(Extras())
        } else if !isKnownUniquelyReferenced(&extras) {
            extras = ExtrasBox(extras!.value)
        }
    }

    private mutating func releaseExtrasIfEmpty() {
        if extras?.value.isEmpty == true { extras = nil }
    }

    // MARK: behaviour

    /// The `ack` this client's frames carry.
    var sentAck: Int {
        var value = ack
        guard let extras else { return value }
        if let ackCeiling = extras.value.ackCeiling { value = min(value, ackCeiling) }
        if let droppedBelow = extras.value.droppedBelow { value = min(value, droppedBelow) }
        return value
    }

    /// Takes `seq` as processed: it becomes the `ack` of the next frame.
    mutating func process(seq: Int) {
        ack = seq // and so `lastSeq`
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
        guard extras?.value.rejects.isEmpty == false else { return nil }
        return rejects.removeFirst()
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

extension Member {
    /// The parts of a member that most members never use: all at their
    /// defaults, the member keeps none (`isEmpty`).
    struct Extras: Sendable {
        var rejects: [Reject] = []
        var droppedRejects = 0
        var ackCeiling: Int?
        var droppedBelow: Int?
        var holds: Set<Int> = []
        var history = EditHistory()
        /// `peer.focus`.
        var focus: String?
        /// `peer.color`, when it is not in `Peer.palette` (a peer relayed from
        /// a node with another palette).
        var color: String?

        var isEmpty: Bool {
            rejects.isEmpty && droppedRejects == 0 && ackCeiling == nil && droppedBelow == nil && holds.isEmpty
                && history.undoStack.isEmpty && history.redoStack.isEmpty && focus == nil && color == nil
        }
    }

    /// `Extras` behind a reference, shared by copies of a member until one
    /// changes them. `@unchecked Sendable` as an array's buffer is: `value` is
    /// only written through a member holding the only reference
    /// (`isKnownUniquelyReferenced`, `makeExtrasUnique`), so a box two
    /// members (and so maybe two threads) can reach is never written.
    final class ExtrasBox: @unchecked Sendable {
        var value: Extras

        init(_ value: Extras) {
            self.value = value
        }
    }
}
