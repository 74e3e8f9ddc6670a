/// The server-assigned id of one connection ("c12"), as on the wire.
public struct ClientID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    public static func < (a: ClientID, b: ClientID) -> Bool { a.rawValue < b.rawValue }
}

/// What a client may do in a room.
public enum Role: String, Sendable, Hashable, CaseIterable {
    /// Reads only: every write gets `forbidden`.
    case viewer
    /// Drags, sets and steps.
    case editor
    /// An editor who may also use the write API.
    case admin

    /// Whether drags, sets and steps are allowed.
    public var mayWrite: Bool { self != .viewer }
}

/// Someone in a room, as others see them.
public struct Peer: Sendable, Hashable {
    /// Their connection.
    public var client: ClientID
    /// Their display name.
    public var name: String
    /// Their colour for ghost thumbs and the presence list, `#RRGGBB`.
    public var color: String
    /// The control they have focused in their page (`focus` messages), if any:
    /// others see where they are before they drag it.
    public var focus: String?

    public init(client: ClientID, name: String, color: String, focus: String? = nil) {
        self.client = client
        self.name = name
        self.color = color
        self.focus = focus
    }

    /// Whether `other` is this person as they were announced, whatever they focus now.
    func isSamePerson(as other: Peer) -> Bool {
        client == other.client && name == other.name && color == other.color
    }

    /// The colours handed to people in join order, skipping those in use:
    /// 24, so that a busy room repeats none before its 25th person (the first
    /// twelve are the original palette; the rest alternate dark and light so
    /// that neighbours in the list stay apart, and all read on light and dark).
    public static let palette = [
        "#E91E63", "#2196F3", "#4CAF50", "#FF9800", "#9C27B0", "#00BCD4",
        "#F44336", "#3F51B5", "#8BC34A", "#FFC107", "#795548", "#607D8B",
        "#009688", "#F06292", "#673AB7", "#CDDC39", "#1565C0", "#FF5722",
        "#2E7D32", "#BA68C8", "#AD1457", "#4DD0E1", "#8D6E63", "#9E9D24",
    ]

    /// A display name made safe to show (`DisplayName.clean`).
    public static func displayName(_ raw: String) -> String {
        DisplayName.clean(raw)
    }
}
