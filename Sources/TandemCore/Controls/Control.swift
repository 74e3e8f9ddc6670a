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
    /// Whether the server keeps a time series of its committed values
    /// (docs/series.md): every gauge unless its schema says `"series": false`,
    /// a slider, snap or toggle whose schema says `"series": true`.
    public let keepsSeries: Bool

    /// A control from already-valid parts; `RoomSchema` is the checked way in.
    init(id: String, label: String, commit: CommitMode, kind: ControlKind, initial: ControlState,
         group: String? = nil, description: String? = nil, unit: String = "", keepsSeries: Bool? = nil) {
        self.id = id
        self.label = label
        self.commit = commit
        self.kind = kind
        self.initial = initial
        self.group = group
        self.description = description
        self.unit = unit
        if case .gauge = kind { self.keepsSeries = keepsSeries ?? true } else { self.keepsSeries = keepsSeries ?? false }
    }

    /// The number a series records of `state`: a slider's, snap's or gauge's
    /// value, a toggle's 1 or 0; `nil` for the kinds that keep none.
    public func seriesValue(of state: ControlState) -> Double? {
        switch state {
        case let .slider(value), let .gauge(value, _), let .snap(_, value): value
        case let .toggle(on): on ? 1 : 0
        default: nil
        }
    }

    /// The thumbs a drag, `set` or `step` may name.
    public var thumbs: [Thumb] { kind.thumbs }

    /// Whether the control has `thumb`.
    public func has(_ thumb: Thumb) -> Bool { thumbs.contains(thumb) }
}
