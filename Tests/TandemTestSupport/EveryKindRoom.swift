import TandemCore

/// The room with every control kind that the relay and OSC tests use, and the
/// fuzz targets of both (fuzz/build.sh compiles this file into them), so that
/// the tests' seeds mean the same room everywhere. One definition.
public enum EveryKindRoom {
    /// Linear, log and free sliders, a snap, a range, stepped and free colours,
    /// a gauge, a toggle, xy pads with log and stepped axes, a button.
    public static let controls: [ControlDefinition] = [
        ControlDefinition(id: "gain", type: "slider", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.5)),
        ControlDefinition(id: "cutoff", type: "slider", min: 20, max: 20000, scaleName: "log"),
        ControlDefinition(id: "free", type: "slider", min: -3, max: 7),
        ControlDefinition(id: "size", type: "snap", values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt",
                          state: StateDefinition(index: 2), labels: ["xs", "s", "m", "l", "xl"]),
        ControlDefinition(id: "blanks", type: "range", scale: [0, 9], operable: [0, 3], minGap: 1,
                          state: StateDefinition(lower: 0, upper: 1)),
        ControlDefinition(id: "color", type: "color", step: 1.0 / 255, state: StateDefinition(hex: "#336699")),
        ControlDefinition(id: "tint", type: "color", commit: "live"),
        ControlDefinition(id: "bpm", type: "gauge", min: 0, max: 170, state: StateDefinition(value: 67)),
        ControlDefinition(id: "filter", type: "toggle"),
        ControlDefinition(id: "pad", type: "xy", x: AxisDefinition(min: -1, max: 1, step: 0.25),
                          y: AxisDefinition(min: 20, max: 20000, scale: "log")),
        ControlDefinition(id: "grid", type: "xy", x: AxisDefinition(min: 0, max: 10, step: 1),
                          y: AxisDefinition(min: 0, max: 10, step: 1)),
        ControlDefinition(id: "go", type: "button"),
    ]

    /// Every control above, as room `every-kind` (the OSC tests' room).
    public static let schema: RoomSchema = room(controls)

    /// The same without the free slider: the room the relay tests' fixtures and
    /// fuzz seeds were written for (a control's index is in their bytes).
    public static let relay: RoomSchema = room(controls.filter { $0.id != "free" })

    private static func room(_ controls: [ControlDefinition]) -> RoomSchema {
        try! RoomSchema(validating: RoomDefinition(id: "every-kind", controls: controls))
    }
}
