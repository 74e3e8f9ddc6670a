import TandemCore

/// One row of a room's commit log: what was committed, by whom and when.
public struct StoredCommit: Sendable, Hashable {
    /// The room's id.
    public var room: String
    /// The room revision this commit made; unique per room, from 1.
    public var revision: Int
    /// The control's id.
    public var control: String
    /// The control's whole committed state after the commit.
    public var state: ControlState
    /// The committing connection ("c12").
    public var client: String
    /// The committer's display name at the time.
    public var name: String
    /// Unix time in milliseconds (wall clock, not the server's monotonic clock).
    public var time: Int64

    public init(room: String, revision: Int, control: String, state: ControlState, client: String, name: String, time: Int64) {
        self.room = room
        self.revision = revision
        self.control = control
        self.state = state
        self.client = client
        self.name = name
        self.time = time
    }

    /// The log row of a room's `Effect.commit`.
    public init(room: String, _ commit: Commit, name: String, time: Int64) {
        self.init(room: room, revision: commit.revision, control: commit.control, state: commit.state,
                  client: commit.by.rawValue, name: name, time: time)
    }
}

/// A saved room as `Room(schema:committed:revisions:revision:)` restores it.
public struct StoredRoom: Sendable, Hashable {
    /// The room's controls, validated.
    public var schema: RoomSchema
    /// Each control's committed state in schema order; the initial state for
    /// a control never committed, or whose stored state no longer fits it.
    public var committed: [ControlState]
    /// The room revision of each control's last commit, in schema order (0: none, or its state was reset).
    public var revisions: [Int]
    /// The room revision: the last revision ever appended for this room id.
    public var revision: Int

    public init(schema: RoomSchema, committed: [ControlState], revisions: [Int], revision: Int) {
        self.schema = schema
        self.committed = committed
        self.revisions = revisions
        self.revision = revision
    }

    /// The room's id.
    public var id: String { schema.id }
}

extension Room {
    /// A room restored from storage.
    public init(_ stored: StoredRoom, limits: RoomLimits = RoomLimits()) {
        self.init(schema: stored.schema, committed: stored.committed, revisions: stored.revisions,
                  revision: stored.revision, limits: limits)
    }
}
