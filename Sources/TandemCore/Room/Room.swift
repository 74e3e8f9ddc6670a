/// The room engine: the shared state of one room's controls, and every rule
/// of the protocol's "Concurrency" section.
///
/// Deterministic and free of I/O: `apply(_:from:at:)` takes a message, its
/// sender and the time (read by the caller) and returns the effects. The room
/// also records, for each member, what its next frame must carry; the server
/// asks for it with `nextFrame(for:)` when the member's socket is writable.
///
/// Two states are kept for every control. The *committed* state changes only
/// by commits (a released drag, a live-mode move, a `set`, a `step`, an
/// `undo` or `redo`), each of which makes a new room revision. The *displayed* state is the committed
/// state overlaid with the live previews of other people's drags. After every
/// call both satisfy every invariant of every control.
public struct Room: Sendable {
    /// The room's controls.
    public let schema: RoomSchema
    /// Limits on clients.
    public var limits: RoomLimits
    /// The room revision: the number of commits ever made. Never goes back.
    public internal(set) var revision: Int
    /// Each control's committed state, in schema order.
    public internal(set) var committed: [ControlState]
    /// The room revision of each control's last commit (0: never committed).
    public internal(set) var revisions: [Int]
    /// Who made each control's last commit.
    public internal(set) var committedBy: [ClientID?]
    /// Who holds a claim on each control (Room+Claims.swift), and when the holder last touched it.
    public internal(set) var claimedBy: [ClientID?]
    var claimHeard: [Moment]
    /// The latest batch with a cause that changed anything (BatchNote.swift):
    /// the change log's `.batch` item.
    public internal(set) var lastBatch: BatchNote?

    var slots: [Slot] = []
    /// The first slot of each control; a control's slots follow its thumbs' order.
    var firstSlot: [Int] = []
    var members = MemberTable()
    /// Peers that left, with the earliest stamp at which they were announced (a rejoin under
    /// the same id keeps it), until every member has seen them go.
    var departed: [ClientID: UInt64] = [:]
    var log: ChangeLog
    var joinCount = 0
    /// The announced members, in the order they were announced (at most `limits.presence`).
    var announced: [ClientID] = []
    /// Quiet members waiting to be announced, oldest first, from `quietHead`;
    /// ids of members who left meanwhile are skipped when their turn comes.
    var quiet: [ClientID] = []
    var quietHead = 0
    /// While set, no member gets a frame: a commit is not yet written to storage.
    public internal(set) var withholdingFrames = false
    /// The change-log stamp at the latest fan-out round (`openRound`).
    var roundBase: UInt64 = 0
    /// The room's part in a cluster (docs/scale-out.md): a single node's room,
    /// the owner's authority (`RoomAuthority`), or a node's view (`RoomView`).
    /// Set once, by the type that wraps the room; a `Room` on its own is standalone.
    var mode: ReplicaMode = .standalone
    /// The change-log stamp at the authority's latest `publishDelta`, separate
    /// from `roundBase`: a delta carries what changed since the previous one.
    var publishBase: UInt64 = 0
    /// A view's count of people present, as the authority last published it.
    var viewPresent = 0
    /// A view's announced people served by other nodes: shown to its members,
    /// never given frames, never holding anything back from the log.
    var remotePeers: [ClientID: RemotePeer] = [:]
    /// What storage last wrote of this room, once the server tracks it
    /// (`markDurable`, Room+Durable.swift); `nil`: not tracked.
    var durable: DurablePoint?

    /// A room at its controls' initial states, revision 0.
    public init(schema: RoomSchema, limits: RoomLimits = RoomLimits()) {
        self.init(schema: schema, committed: schema.controls.map(\.initial),
                  revisions: Array(repeating: 0, count: schema.controls.count), revision: 0, limits: limits)
    }

    /// A room restored from storage. States that are not valid for their
    /// controls (a schema changed since) fall back to the control's initial state.
    public init(schema: RoomSchema, committed: [ControlState], revisions: [Int], revision: Int, limits: RoomLimits = RoomLimits()) {
        self.schema = schema
        self.limits = limits
        self.revision = revision
        var states: [ControlState] = []
        for (i, control) in schema.controls.enumerated() {
            let state = i < committed.count ? committed[i] : control.initial
            states.append(control.isValid(state) ? state : control.initial)
        }
        self.committed = states
        self.revisions = schema.controls.indices.map { $0 < revisions.count ? Swift.min(revisions[$0], revision) : 0 }
        self.committedBy = Array(repeating: nil, count: schema.controls.count)
        self.claimedBy = Array(repeating: nil, count: schema.controls.count)
        self.claimHeard = Array(repeating: .zero, count: schema.controls.count)
        for (c, control) in schema.controls.enumerated() {
            firstSlot.append(slots.count)
            for thumb in control.thumbs { slots.append(Slot(control: c, thumb: thumb)) }
        }
        log = ChangeLog(controls: schema.controls.count, slots: slots.count)
    }

    /// The room's id.
    public var id: String { schema.id }

    /// The people announced in the room, in the order they were announced:
    /// everyone, up to `limits.presence` people.
    public var peers: [Peer] {
        announced.compactMap { members[$0]?.peer ?? remotePeers[$0]?.peer }
    }

    /// How many people are in the room, announced or not: in a view, the
    /// authority's count (its members are on every node), else the members here.
    /// Every count a frame or a welcome carries is read from it.
    public var present: Int { mode == .view ? viewPresent : members.count }

    /// Whether `client` is in the room.
    public func contains(_ client: ClientID) -> Bool { members[client] != nil }

    /// The state people see for control `index`: committed, with live previews laid over it.
    public func displayed(_ index: Int) -> ControlState {
        displayed(index, excluding: nil)
    }

    func displayed(_ index: Int, excluding excluded: Int?) -> ControlState {
        let control = schema.controls[index]
        var state = committed[index]
        for s in slotRange(index) where s != excluded {
            if let preview = slots[s].live?.preview {
                state = control.overlaying(slots[s].thumb, value: preview, onto: state)
            }
        }
        return state
    }

    func slotRange(_ control: Int) -> Range<Int> {
        firstSlot[control]..<(firstSlot[control] + schema.controls[control].thumbs.count)
    }

    func slot(_ control: Int, _ thumb: Thumb) -> Int? {
        schema.controls[control].thumbs.firstIndex(of: thumb).map { firstSlot[control] + $0 }
    }
}
