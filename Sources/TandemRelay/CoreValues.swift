import TandemCore

/// Builds `GestureEntry` and `ControlChange` values from decoded fields.
enum CoreValues {
    static func gesture(controlIndex: Int, control: String, thumb: Thumb, by: ClientID, phase: DragPhase,
                        state: ControlState) -> GestureEntry {
        GestureEntry(controlIndex: controlIndex, control: control, thumb: thumb, by: by, phase: phase, state: state)
    }

    /// A delta's changes carry no stamp between nodes (RoomDelta.changes): 0.
    static func change(controlIndex: Int, control: String, state: ControlState, revision: Int,
                       by: ClientID?, claim: ClientID?) -> ControlChange {
        ControlChange(controlIndex: controlIndex, control: control, state: state, revision: revision, by: by, claim: claim, stamp: 0)
    }
}
