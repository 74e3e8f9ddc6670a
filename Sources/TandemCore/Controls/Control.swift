/// One validated control of a room: identity, kind and starting state.
public struct Control: Sendable, Hashable {
    /// Unique within its room; `[A-Za-z0-9_.-]`, 1–64 characters.
    public let id: String
    /// What people read beside it.
    public let label: String
    /// When a drag becomes the committed value.
    public let commit: CommitMode
    /// What it is, with the parameters of its math.
    public let kind: ControlKind
    /// The state of a room that has never been committed to.
    public let initial: ControlState
    /// The heading the control's card sits under; `nil`: before every group.
    public let group: String?
    /// Help text shown under the label.
    public let description: String?
    /// A slider's or gauge's unit, shown after the value; empty when none
    /// (a snap slider's is in its `SnapSpec`, an xy pad's in each `Axis`).
    public let unit: String

    /// A control from already-valid parts; `RoomSchema` is the checked way in.
    init(id: String, label: String, commit: CommitMode, kind: ControlKind, initial: ControlState,
         group: String? = nil, description: String? = nil, unit: String = "") {
        self.id = id
        self.label = label
        self.commit = commit
        self.kind = kind
        self.initial = initial
        self.group = group
        self.description = description
        self.unit = unit
    }

    /// The thumbs a drag, `set` or `step` may name.
    public var thumbs: [Thumb] { kind.thumbs }

    /// Whether the control has `thumb`.
    public func has(_ thumb: Thumb) -> Bool { thumbs.contains(thumb) }
}
