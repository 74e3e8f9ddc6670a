/// The rooms a token opens: the `room` claim.
public enum RoomScope: Sendable, Hashable {
    /// `"*"`: every room, present and future.
    case all
    /// One id (`"synth"`) or an array of ids (`["synth", "demo"]`); empty opens none.
    case rooms(Set<String>)

    /// Whether a token with this scope may enter `room`.
    public func covers(room: String) -> Bool {
        switch self {
        case .all: true
        case let .rooms(ids): ids.contains(room)
        }
    }
}
