import TandemCore

/// Builds `GestureEntry` and `ControlChange` values from decoded fields.
///
/// TandemCore declares both as public structs with public `var`s but only
/// the implicit *internal* memberwise initialiser, and Swift lets no other
/// module write an initialiser for a struct it does not own. So each is made
/// from a prototype, one real value taken once through the room's public API
/// (a set and a drag in a room of the demo schema), with every stored field
/// then overwritten. When TandemCore gains `public init`s for the two, these
/// two functions become plain initialiser calls and the prototypes go.
enum CoreValues {
    static func gesture(controlIndex: Int, control: String, thumb: Thumb, by: ClientID, phase: DragPhase,
                        state: ControlState) -> GestureEntry {
        var entry = prototypes.gesture
        entry.controlIndex = controlIndex
        entry.control = control
        entry.thumb = thumb
        entry.by = by
        entry.phase = phase
        entry.state = state
        return entry
    }

    static func change(controlIndex: Int, control: String, state: ControlState, revision: Int,
                       by: ClientID?) -> ControlChange {
        var change = prototypes.change
        change.controlIndex = controlIndex
        change.control = control
        change.state = state
        change.revision = revision
        change.by = by
        // Not carried between nodes: a delta's changes have no stamp (RoomDelta.changes).
        change.stamp = 0
        return change
    }

    /// One of each, from a room driven by fixed messages: the same every time,
    /// whatever any input says (the relay tests exercise it on every run).
    private static let prototypes: (gesture: GestureEntry, change: ControlChange) = {
        var room = Room(schema: .demo)
        let client: ClientID = "relay"
        _ = room.join(client, name: "relay", role: .editor, at: .zero)
        _ = room.nextFrame(for: client)
        let set = ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.25)))
        _ = room.apply(set, from: client, at: .zero)
        var change: ControlChange?
        if case let .update(update)? = room.nextFrame(for: client) { change = update.changes.first }
        let drag = ClientMessage(seq: 2, .drag(control: "gain", thumb: nil, phase: .begin, pointer: .at(0.5)))
        let gesture = room.apply(drag, from: client, at: .zero).lazy.compactMap { effect -> GestureEntry? in
            if case let .gesture(entry) = effect { entry } else { nil }
        }.first
        guard let gesture, let change else {
            fatalError("TandemRelay: the demo room no longer yields a gesture entry and a change to build from")
        }
        return (gesture, change)
    }()
}
