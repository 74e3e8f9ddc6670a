/// Why an incoming OSC message is dropped: a short `label` for the log and the
/// metrics (one of a fixed set, `Label.allCases`) and a sentence that says what was wrong.
public struct OSCDrop: Error, Sendable, Hashable {
    /// The kinds of drop; the raw value is the metrics label.
    public enum Label: String, Sendable, Hashable, CaseIterable {
        /// Not an address of this room: another room, empty or unusable parts, an OSC pattern.
        case unknownAddress = "unknown_address"
        /// The room has no control of that id.
        case unknownControl = "unknown_control"
        /// The control has no such thumb or channel, or needs one and none was named.
        case unknownThumb = "unknown_thumb"
        /// Too many or too few arguments.
        case wrongCount = "wrong_count"
        /// A string where a number goes, or a number where a string goes.
        case wrongType = "wrong_type"
        /// A number or string of the right type that is not a value: NaN, infinite,
        /// a step that is not whole, an index out of range, a bad hex, a toggle not 0 or 1.
        case badValue = "bad_value"
        /// A step of a gauge: a gauge is only set.
        case readOnly = "read_only"
        /// A button sent 0: a release, which presses nothing.
        case release = "release"
        /// Not an OSC packet: liblo could not read it (the bridge's, not `OSCIn`'s).
        case malformed = "malformed"
        /// An address whose first part is no room on this server (the bridge's).
        case unknownRoom = "unknown_room"
        /// A sender outside loopback and `--osc-allow` (the bridge's).
        case notAllowed = "not_allowed"
        /// A `/ROOM/dump` past the dump rate of its sender, its room or the bridge (the bridge's).
        case dumpLimited = "dump_limited"
        /// A `/ROOM/name` of a new name past its sender's rate of new names (the bridge's).
        case nameLimited = "name_limited"
        /// A write under a new name in a room that has its most OSC writers (the bridge's).
        case tooManyWriters = "too_many_writers"
    }

    /// The labels `OSCIn.request` gives; the others are the bridge's (the packet, its sender, the room).
    public static let requestLabels: [Label] = [.unknownAddress, .unknownControl, .unknownThumb, .wrongCount,
                                                .wrongType, .badValue, .readOnly, .release]

    public var kind: Label
    /// What went wrong, for the log.
    public var reason: String

    public init(_ kind: Label, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The metrics label: `unknown_address`, `wrong_type`, `bad_value`…
    public var label: String { kind.rawValue }
}
