import Testing
@testable import TandemCore

/// The schema of the kinds and options added in v1.1: what is accepted, the
/// defaults, and one refusal per rule, each naming the control and the field.
@Suite("Schemas of the v1.1 kinds and options")
struct KindSchemaTests {
    private func schema(_ controls: ControlDefinition...) throws -> RoomSchema {
        try RoomSchema(validating: RoomDefinition(id: "r", controls: controls))
    }

    /// The error a single control is refused with.
    private func error(_ control: ControlDefinition) -> SchemaError? {
        do {
            _ = try RoomSchema(validating: RoomDefinition(id: "r", controls: [control]))
            return nil
        } catch {
            return error
        }
    }

    private func refused(_ control: ControlDefinition, _ field: String, _ problem: SchemaError.Problem,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        let got = error(control)
        #expect(got == SchemaError(control: control.id, field: field, problem: problem), sourceLocation: sourceLocation)
        #expect(got?.description.contains("field '\(field)'") == true, sourceLocation: sourceLocation)
    }

    @Test("the new kinds start at their defaults: toggle off, pad at both minimums, button at 0 presses")
    func defaults() throws {
        let room = try schema(
            ControlDefinition(id: "t", type: "toggle"),
            ControlDefinition(id: "p", type: "xy", x: AxisDefinition(min: -1, max: 1), y: AxisDefinition(min: 20, max: 2000, scale: "log")),
            ControlDefinition(id: "b", type: "button"),
            ControlDefinition(id: "f", type: "slider", min: 20, max: 20000, scaleName: "log"))
        #expect(room.controls.map(\.initial) == [.toggle(on: false), .xy(x: -1, y: 20), .button(presses: 0), .slider(value: 20)])
        #expect(room.controls.map(\.thumbs) == [[.on], [.xy], [.press], [.value]])
        guard case let .slider(math) = room.controls[3].kind else { Issue.record("not a slider"); return }
        #expect(math == SliderMath(min: 20, max: 20000, scale: .log, digits: 3))
        guard case let .xy(spec) = room.controls[1].kind else { Issue.record("not a pad"); return }
        #expect(spec.y.math.digits == 3 && spec.y.math.scale == .log && spec.x.math.digits == nil)
    }

    @Test("starting states, units, labels, groups and descriptions are kept")
    func options() throws {
        let room = try schema(
            ControlDefinition(id: "t", type: "toggle", state: StateDefinition(on: true), group: "Filter", description: "Bypass the filter"),
            ControlDefinition(id: "p", type: "xy", state: StateDefinition(x: 0.5, y: 200),
                              x: AxisDefinition(min: 0, max: 1, step: 0.25, unit: "%", label: "Mix"),
                              y: AxisDefinition(min: 20, max: 2000, scale: "log", digits: 2, unit: "Hz", label: "Cutoff")),
            ControlDefinition(id: "b", type: "button", state: StateDefinition(presses: 7)),
            ControlDefinition(id: "s", type: "slider", min: 20, max: 20000, unit: "Hz", state: StateDefinition(value: 440),
                              scaleName: "log", digits: 4),
            ControlDefinition(id: "g", type: "gauge", min: 0, max: 1, unit: "dB"),
            ControlDefinition(id: "w", type: "snap", values: [0, 1, 2], labels: ["sine", "square", "saw"]))
        #expect(room.controls.map(\.initial) == [.toggle(on: true), .xy(x: 0.5, y: 200), .button(presses: 7),
                                                 .slider(value: 440), .gauge(value: 0, fraction: 0), .snap(index: 0, value: 0)])
        #expect(room.controls[0].group == "Filter" && room.controls[0].description == "Bypass the filter")
        #expect(room.controls[1].group == nil && room.controls[1].description == nil)
        #expect(room.controls.map(\.unit) == ["", "", "", "Hz", "dB", ""])
        guard case let .xy(spec) = room.controls[1].kind, case let .snap(snap) = room.controls[5].kind else {
            Issue.record("wrong kinds"); return
        }
        #expect(spec.x == Axis(math: SliderMath(min: 0, max: 1, step: 0.25), unit: "%", label: "Mix"))
        #expect(spec.y == Axis(math: SliderMath(min: 20, max: 2000, scale: .log, digits: 2), unit: "Hz", label: "Cutoff"))
        #expect(snap.labels == ["sine", "square", "saw"])
    }

    @Test("a log slider needs 0 < min < max and takes digits, not a step")
    func logRules() {
        refused(ControlDefinition(id: "f", type: "slider", min: 0, max: 10, scaleName: "log"), "min", .conflicts("must be above 0 on a log scale"))
        refused(ControlDefinition(id: "f", type: "slider", min: -5, max: 10, scaleName: "log"), "min", .conflicts("must be above 0 on a log scale"))
        refused(ControlDefinition(id: "f", type: "slider", min: 10, max: 10, scaleName: "log"), "max", .badBounds)
        refused(ControlDefinition(id: "f", type: "slider", min: 1e-300, max: 1e300, scaleName: "log"), "max",
                .conflicts("must be at most about 1e308 times min on a log scale"))
        refused(ControlDefinition(id: "f", type: "slider", min: 1, max: 10, step: 1, scaleName: "log"), "step", .conflicts("a log slider has no step; use digits"))
        refused(ControlDefinition(id: "f", type: "slider", min: 1, max: 10, scaleName: "cubic"), "scale", .unknownOption("cubic", allowed: ["linear", "log"]))
        refused(ControlDefinition(id: "f", type: "slider", min: 1, max: 10, scale: [1, 10]), "scale", .wrongType(expected: "\"linear\" or \"log\""))
        refused(ControlDefinition(id: "r", type: "range", scale: nil, scaleName: "log"), "scale", .wrongType(expected: "[lo, hi]"))
    }

    @Test("digits are a whole number from 1 to 15, and a stepped slider has none")
    func digitsRules() {
        for d in [0.0, 16, -1] {
            refused(ControlDefinition(id: "s", type: "slider", min: 0, max: 1, digits: d), "digits", .outOfRange(1...15))
        }
        refused(ControlDefinition(id: "s", type: "slider", min: 0, max: 1, digits: 2.5), "digits", .notInteger)
        refused(ControlDefinition(id: "s", type: "slider", min: 0, max: 1, step: 0.1, digits: 2), "digits",
                .conflicts("a slider with a step has no digits: the step sets its precision"))
        refused(ControlDefinition(id: "s", type: "slider", min: 20, max: 20000, state: StateDefinition(value: 1234), scaleName: "log"),
                "state.value", .invalidState("1234.0 is not a value of the slider (20.0 to 20000.0 on a log scale to 3 significant digits)"))
    }

    @Test("texts have their lengths: group 1-60, description 1-500, unit 16, labels and axis labels 1-40")
    func textCaps() {
        refused(ControlDefinition(id: "t", type: "toggle", group: ""), "group", .emptyText)
        refused(ControlDefinition(id: "t", type: "toggle", group: String(repeating: "g", count: 61)), "group", .tooLong(60))
        refused(ControlDefinition(id: "t", type: "toggle", description: ""), "description", .emptyText)
        refused(ControlDefinition(id: "t", type: "toggle", description: String(repeating: "d", count: 501)), "description", .tooLong(500))
        refused(ControlDefinition(id: "s", type: "slider", min: 0, max: 1, unit: String(repeating: "u", count: 17)), "unit", .tooLong(16))
        refused(ControlDefinition(id: "g", type: "gauge", min: 0, max: 1, unit: String(repeating: "u", count: 17)), "unit", .tooLong(16))
        refused(ControlDefinition(id: "w", type: "snap", values: [1, 2], labels: ["a", ""]), "labels[1]", .emptyText)
        refused(ControlDefinition(id: "w", type: "snap", values: [1, 2], labels: ["a", String(repeating: "l", count: 41)]), "labels[1]", .tooLong(40))
        refused(ControlDefinition(id: "w", type: "snap", values: [1, 2], labels: ["a"]), "labels", .countMismatch(expected: 2))
        refused(ControlDefinition(id: "p", type: "xy", x: AxisDefinition(min: 0, max: 1, label: String(repeating: "l", count: 41)),
                                  y: AxisDefinition(min: 0, max: 1)), "x.label", .tooLong(40))
        refused(ControlDefinition(id: "p", type: "xy", x: AxisDefinition(min: 0, max: 1),
                                  y: AxisDefinition(min: 0, max: 1, unit: String(repeating: "u", count: 17))), "y.unit", .tooLong(16))
        #expect(error(ControlDefinition(id: "t", type: "toggle", group: String(repeating: "g", count: 60),
                                        description: String(repeating: "d", count: 500))) == nil)
    }

    @Test("an xy pad needs both axes, each checked as a slider with its own field names")
    func padRules() {
        let axis = AxisDefinition(min: 0, max: 1)
        refused(ControlDefinition(id: "p", type: "xy", y: axis), "x", .missing)
        refused(ControlDefinition(id: "p", type: "xy", x: axis), "y", .missing)
        refused(ControlDefinition(id: "p", type: "xy", x: AxisDefinition(max: 1), y: axis), "x.min", .missing)
        refused(ControlDefinition(id: "p", type: "xy", x: axis, y: AxisDefinition(min: 2, max: 1)), "y.max", .badBounds)
        refused(ControlDefinition(id: "p", type: "xy", x: axis, y: AxisDefinition(min: -1, max: 1, scale: "log")), "y.min",
                .conflicts("must be above 0 on a log scale"))
        refused(ControlDefinition(id: "p", type: "xy", x: AxisDefinition(min: 0, max: 1, step: 0.3), y: axis), "x.step",
                .stepDoesNotDivide(steps: 1 / 0.3))
        refused(ControlDefinition(id: "p", type: "xy", x: axis, y: AxisDefinition(min: 1, max: 10, step: 1, scale: "log")), "y.step",
                .conflicts("a log slider has no step; use digits"))
        refused(ControlDefinition(id: "p", type: "xy", state: StateDefinition(x: 2), x: axis, y: axis), "state.x",
                .invalidState("2.0 is not a value of axis x (0.0 to 1.0)"))
        refused(ControlDefinition(id: "p", type: "xy", state: StateDefinition(value: 0.5), x: axis, y: axis), "state.value", .notAllowed(type: "xy"))
        refused(ControlDefinition(id: "p", type: "xy", min: 0, x: axis, y: axis), "min", .notAllowed(type: "xy"))
    }

    @Test("toggles and buttons take only their own state fields; presses are whole and not negative")
    func toggleAndButtonRules() {
        refused(ControlDefinition(id: "t", type: "toggle", state: StateDefinition(value: 1)), "state.value", .notAllowed(type: "toggle"))
        refused(ControlDefinition(id: "b", type: "button", state: StateDefinition(on: true)), "state.on", .notAllowed(type: "button"))
        refused(ControlDefinition(id: "b", type: "button", state: StateDefinition(presses: -1)), "state.presses",
                .invalidState("must be a whole number from 0 to 2^53"))
        refused(ControlDefinition(id: "b", type: "button", state: StateDefinition(presses: 1.5)), "state.presses", .notInteger)
        refused(ControlDefinition(id: "s", type: "slider", min: 0, max: 1, state: StateDefinition(on: true)), "state.on", .notAllowed(type: "slider"))
        refused(ControlDefinition(id: "t", type: "toggle", step: 1), "step", .notAllowed(type: "toggle"))
        refused(ControlDefinition(id: "t", type: "dial"), "type", .unknownType("dial"))
        #expect(error(ControlDefinition(id: "t", type: "dial"))?.description.contains("toggle, xy, button") == true)
    }
}
