extension RoomSchema {
    /// The room `demo`, always present: the table at the end of the protocol.
    public static let demo: RoomSchema = {
        let definition = RoomDefinition(id: "demo", title: "Demo", controls: [
            ControlDefinition(id: "size", type: "snap", label: "Circle size",
                              values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt",
                              state: StateDefinition(index: 2)),
            ControlDefinition(id: "blanks", type: "range", label: "Blank cells",
                              scale: [0, 9], operable: [0, 3], minGap: 1,
                              state: StateDefinition(lower: 0, upper: 1)),
            ControlDefinition(id: "color", type: "color", label: "Colour", step: 1.0 / 255,
                              state: StateDefinition(hex: "#336699")),
            ControlDefinition(id: "gain", type: "slider", label: "Gain", min: 0, max: 1, step: 0.01,
                              state: StateDefinition(value: 0.5)),
            ControlDefinition(id: "bpm", type: "gauge", label: "BPM", min: 0, max: 170,
                              state: StateDefinition(value: 67)),
        ])
        do {
            return try RoomSchema(validating: definition)
        } catch {
            fatalError("the built-in demo room is invalid: \(error)")
        }
    }()
}
