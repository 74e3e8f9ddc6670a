/// Why a batch was committed: what people are told when someone else's
/// recall, restore or reset moves their controls (docs/protocol.md, "Batch
/// notes").
public enum BatchCause: Sendable, Hashable {
    /// A preset's recall, by the preset's name.
    case preset(name: String)
    /// The room put back as it was right after `revision` (the timeline's restore).
    case restore(revision: Int)
    /// A reset to the room file's values: of one control, or (`nil`) of the room.
    case reset(control: String?)

    /// How the commit log and the server's log name it: "preset Warm", "restore 1402", "reset", "reset cutoff".
    public var origin: String {
        switch self {
        case let .preset(name): "preset \(name)"
        case let .restore(revision): "restore \(revision)"
        case let .reset(control?): "reset \(control)"
        case .reset(nil): "reset"
        }
    }
}

/// The latest batch that changed the room: who, why, at which revision, and
/// which controls it changed. Frames carry it once to every member (it is an
/// item of the change log, conflated like any other: a member that was slow
/// through two batches hears of the later one).
public struct BatchNote: Sendable, Hashable {
    /// The revision the batch made.
    public var revision: Int
    /// Who committed it.
    public var by: ClientID
    /// Why.
    public var cause: BatchCause
    /// The ids of the controls it changed, in the room's order.
    public var controls: [String]

    public init(revision: Int, by: ClientID, cause: BatchCause, controls: [String]) {
        self.revision = revision
        self.by = by
        self.cause = cause
        self.controls = controls
    }
}
