import Testing
@testable import TandemCore

/// One test per kind of bad schema, each pinning the error's control, field and
/// problem; then the definitions that must be accepted and the defaults they get.
@Suite("Room schema validation")
struct SchemaValidationTests {
    // MARK: helpers

    /// A room named `r` holding `controls`.
    private func room(_ controls: ControlDefinition...) -> RoomDefinition {
        RoomDefinition(id: "r", controls: controls)
    }

    /// The problem `definition` is refused with, after checking the error names
    /// `control` and `field` in its fields and its description. Records a
    /// failure (and returns nil) if the definition is accepted.
    private func refusal(of definition: RoomDefinition, control: String?, field: String,
                         sourceLocation: SourceLocation = #_sourceLocation) -> SchemaError.Problem? {
        let error = #expect(throws: SchemaError.self, sourceLocation: sourceLocation) {
            try RoomSchema(validating: definition)
        }
        guard let error else { return nil }
        #expect(error.control == control, "\(error)", sourceLocation: sourceLocation)
        #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains("field '\(field)'"), "\(error)", sourceLocation: sourceLocation)
        if let control {
            #expect(error.description.contains("control '\(control)'"), "\(error)", sourceLocation: sourceLocation)
        } else {
            #expect(!error.description.contains("control '"), "\(error)", sourceLocation: sourceLocation)
        }
        return error.problem
    }

    /// The validated room, recording a failure if it is refused.
    private func accepted(_ definition: RoomDefinition, sourceLocation: SourceLocation = #_sourceLocation) -> RoomSchema? {
        do {
            return try RoomSchema(validating: definition)
        } catch {
            Issue.record("refused: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The one control of a room holding only `control`, and its initial state.
    private func only(_ control: ControlDefinition, sourceLocation: SourceLocation = #_sourceLocation) -> Control? {
        accepted(room(control), sourceLocation: sourceLocation)?.controls.first
    }

    // MARK: snap values

    @Test("snap values that are empty are refused")
    func emptyValues() {
        let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: [])), control: "s", field: "values")
        #expect(problem == .empty)
    }

    @Test("snap values out of order are refused at the first one not above its predecessor")
    func unsortedValues() {
        let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: [1, 3, 2, 4])), control: "s", field: "values")
        #expect(problem == .notAscending(at: 2))
    }

    @Test("repeated snap values are refused: values must be strictly ascending")
    func duplicateValues() {
        let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: [1, 2, 2])), control: "s", field: "values")
        #expect(problem == .notAscending(at: 2))
    }

    @Test("a snap value that is NaN or infinite is refused")
    func nonFiniteValue() {
        for bad in [Double.nan, .infinity, -.infinity] {
            let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: [1, bad])), control: "s", field: "values")
            #expect(problem == .notFinite, "\(bad)")
        }
    }

    @Test("a snap slider without values is refused")
    func missingValues() {
        let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap")), control: "s", field: "values")
        #expect(problem == .missing)
    }

    @Test("an unknown snap layout is refused, naming the allowed ones")
    func unknownLayout() {
        let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: [1, 2], layout: "diagonal")),
                              control: "s", field: "layout")
        #expect(problem == .unknownOption("diagonal", allowed: ["ordinal", "proportional"]))
    }

    // MARK: range bounds

    @Test("an operable part reaching outside the scale is refused")
    func operableOutsideScale() {
        for operable: [Double] in [[0, 10], [-1, 3], [10, 12]] {
            let problem = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], operable: operable)),
                                  control: "b", field: "operable")
            #expect(problem == .outsideScale, "\(operable)")
        }
    }

    @Test("an operable span smaller than minGap is refused")
    func operableSpanBelowMinGap() {
        let problem = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], operable: [2, 3], minGap: 2)),
                              control: "b", field: "operable")
        #expect(problem == .spanSmallerThanGap(span: 1, minGap: 2))
        let point = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], operable: [4, 4])),
                            control: "b", field: "operable")
        #expect(point == .spanSmallerThanGap(span: 0, minGap: 1))
    }

    @Test("range numbers that are not whole are refused in scale, operable and minGap")
    func nonIntegerRangeNumbers() {
        let scale = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9.5])), control: "b", field: "scale")
        #expect(scale == .notInteger)
        let operable = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], operable: [0.5, 3])),
                               control: "b", field: "operable")
        #expect(operable == .notInteger)
        let gap = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], minGap: 1.5)), control: "b", field: "minGap")
        #expect(gap == .notInteger)
        let infinite = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, .infinity])), control: "b", field: "scale")
        #expect(infinite == .notFinite)
    }

    @Test("a scale whose low end is not below its high end, or that is not a pair, is refused")
    func scaleBoundsOutOfOrder() {
        for scale: [Double] in [[5, 5], [9, 0], [0], [0, 5, 9], []] {
            let problem = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: scale)), control: "b", field: "scale")
            #expect(problem == .badBounds, "\(scale)")
        }
        let operable = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], operable: [3, 2])),
                               control: "b", field: "operable")
        #expect(operable == .badBounds)
    }

    @Test("a range without a scale is refused")
    func missingScale() {
        let problem = refusal(of: room(ControlDefinition(id: "b", type: "range")), control: "b", field: "scale")
        #expect(problem == .missing)
    }

    @Test("a negative minGap is refused")
    func negativeMinGap() {
        let problem = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], minGap: -1)), control: "b", field: "minGap")
        #expect(problem == .notPositive)
    }

    // MARK: slider bounds and steps

    @Test("a slider whose min is not below its max is refused")
    func sliderBoundsOutOfOrder() {
        for (lo, hi) in [(1.0, 1.0), (2.0, 1.0)] {
            let problem = refusal(of: room(ControlDefinition(id: "g", type: "slider", min: lo, max: hi)), control: "g", field: "max")
            #expect(problem == .badBounds, "\(lo)–\(hi)")
        }
        let missing = refusal(of: room(ControlDefinition(id: "g", type: "slider", max: 1)), control: "g", field: "min")
        #expect(missing == .missing)
        let infinite = refusal(of: room(ControlDefinition(id: "v", type: "gauge", min: 0, max: .infinity)), control: "v", field: "max")
        #expect(infinite == .notFinite)
    }

    @Test("a step that does not divide the span into whole steps is refused, for sliders and colours")
    func stepDoesNotDivideTheSpan() throws {
        let slider = refusal(of: room(ControlDefinition(id: "g", type: "slider", min: 0, max: 1, step: 0.3)), control: "g", field: "step")
        let sliderSteps = try #require(slider?.stepsMade)
        #expect(abs(sliderSteps - 1 / 0.3) < 1e-9)
        let color = refusal(of: room(ControlDefinition(id: "c", type: "color", step: 0.3)), control: "c", field: "step")
        #expect(color?.stepsMade != nil)
        let tooBig = refusal(of: room(ControlDefinition(id: "g", type: "slider", min: 0, max: 1, step: 2)), control: "g", field: "step")
        #expect(tooBig?.stepsMade != nil)
    }

    @Test("a step that is zero or negative is refused, for sliders and colours")
    func stepNotPositive() {
        for step in [0.0, -0.1] {
            let slider = refusal(of: room(ControlDefinition(id: "g", type: "slider", min: 0, max: 1, step: step)), control: "g", field: "step")
            #expect(slider == .notPositive, "\(step)")
            let color = refusal(of: room(ControlDefinition(id: "c", type: "color", step: step)), control: "c", field: "step")
            #expect(color == .notPositive, "\(step)")
        }
    }

    // MARK: identity, type and options

    @Test("two controls with the same id are refused, naming that id")
    func duplicateControlIDs() {
        let problem = refusal(of: room(ControlDefinition(id: "a", type: "slider", min: 0, max: 1),
                                       ControlDefinition(id: "a", type: "gauge", min: 0, max: 1)),
                              control: "a", field: "id")
        #expect(problem == .duplicateID)
    }

    @Test("an unknown control type is refused, naming it")
    func unknownType() {
        let problem = refusal(of: room(ControlDefinition(id: "k", type: "knob")), control: "k", field: "type")
        #expect(problem == .unknownType("knob"))
    }

    @Test("a control without a type is refused")
    func missingType() {
        let problem = refusal(of: room(ControlDefinition(id: "k")), control: "k", field: "type")
        #expect(problem == .missing)
    }

    @Test("a control without an id is refused and named by its position from 1")
    func missingID() {
        let first = refusal(of: room(ControlDefinition(type: "slider", min: 0, max: 1)), control: "#1", field: "id")
        #expect(first == .missing)
        let second = refusal(of: room(ControlDefinition(id: "ok", type: "slider", min: 0, max: 1),
                                      ControlDefinition(type: "slider", min: 0, max: 1)),
                             control: "#2", field: "id")
        #expect(second == .missing)
    }

    @Test("a control id with a space, a slash or another bad character or length is refused and named by position")
    func badControlID() {
        let tooLong = String(repeating: "x", count: 65)
        for (position, id) in ["my knob", "a/b", "", tooLong, "é", "a:b", ".", ".."].enumerated() {
            var controls = (0..<position).map { ControlDefinition(id: "c\($0)", type: "slider", min: 0, max: 1) }
            controls.append(ControlDefinition(id: id, type: "slider", min: 0, max: 1))
            let problem = refusal(of: RoomDefinition(id: "r", controls: controls), control: "#\(position + 1)", field: "id")
            #expect(problem == .badID, "'\(id)'")
        }
    }

    @Test("an unknown commit mode is refused, naming the allowed ones")
    func unknownCommitMode() {
        let problem = refusal(of: room(ControlDefinition(id: "g", type: "slider", commit: "sometimes", min: 0, max: 1)),
                              control: "g", field: "commit")
        #expect(problem == .unknownOption("sometimes", allowed: ["release", "live"]))
    }

    @Test("a field that belongs to another type of control is refused")
    func fieldOfAnotherType() {
        let cases: [(ControlDefinition, String, String)] = [
            (ControlDefinition(id: "x", type: "slider", min: 0, max: 1, values: [1, 2]), "values", "slider"),
            (ControlDefinition(id: "x", type: "snap", step: 1, values: [1, 2]), "step", "snap"),
            (ControlDefinition(id: "x", type: "range", min: 0, scale: [0, 9]), "min", "range"),
            (ControlDefinition(id: "x", type: "color", layout: "ordinal"), "layout", "color"),
            (ControlDefinition(id: "x", type: "color", minGap: 1), "minGap", "color"),
            (ControlDefinition(id: "x", type: "gauge", min: 0, max: 1, step: 0.5), "step", "gauge"),
            (ControlDefinition(id: "x", type: "gauge", min: 0, max: 1, scaleName: "log"), "scale", "gauge"),
            (ControlDefinition(id: "x", type: "snap", values: [1, 2], digits: 3), "digits", "snap"),
            (ControlDefinition(id: "x", type: "slider", min: 0, max: 1, labels: ["a"]), "labels", "slider"),
            (ControlDefinition(id: "x", type: "toggle", min: 0), "min", "toggle"),
            (ControlDefinition(id: "x", type: "button", unit: "x"), "unit", "button"),
            (ControlDefinition(id: "x", type: "slider", min: 0, max: 1, x: AxisDefinition(min: 0, max: 1)), "x", "slider"),
        ]
        for (definition, field, type) in cases {
            let problem = refusal(of: room(definition), control: "x", field: field)
            #expect(problem == .notAllowed(type: type), "\(field) on \(type)")
        }
    }

    // MARK: initial states

    @Test("a slider's initial value outside its bounds or off its grid is refused")
    func invalidSliderState() {
        for value in [1.5, -0.01, 0.505, 0.001] {
            let problem = refusal(of: room(ControlDefinition(id: "g", type: "slider", min: 0, max: 1, step: 0.01,
                                                             state: StateDefinition(value: value))),
                                  control: "g", field: "state.value")
            #expect(problem?.isInvalidState == true, "\(value)")
        }
        let nan = refusal(of: room(ControlDefinition(id: "g", type: "slider", min: 0, max: 1, state: StateDefinition(value: .nan))),
                          control: "g", field: "state.value")
        #expect(nan == .notFinite)
    }

    @Test("a snap slider's initial index outside its values, or a value not among them, is refused")
    func invalidSnapState() {
        let values: [Double] = [20, 40, 60]
        for index in [3.0, -1, 1.5] {
            let problem = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: values, state: StateDefinition(index: index))),
                                  control: "s", field: "state.index")
            #expect(problem?.isInvalidState == true, "\(index)")
        }
        let notAValue = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: values, state: StateDefinition(value: 50))),
                                control: "s", field: "state.value")
        #expect(notAValue?.isInvalidState == true)
        let disagreeing = refusal(of: room(ControlDefinition(id: "s", type: "snap", values: values, state: StateDefinition(value: 60, index: 1))),
                                  control: "s", field: "state.value")
        #expect(disagreeing?.isInvalidState == true)
    }

    @Test("a range's initial thumbs closer than minGap, outside operable, or only one given are refused")
    func invalidRangeState() {
        // (lower, upper, minGap) over scale [-5, 9], operable [0, 3].
        let states: [(Double, Double, Double)] = [(1, 1, 1), (2, 1, 1), (0, 4, 1), (-1, 2, 1), (1, 3, 3)]
        for (lower, upper, minGap) in states {
            let problem = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [-5, 9], operable: [0, 3], minGap: minGap,
                                                             state: StateDefinition(lower: lower, upper: upper))),
                                  control: "b", field: "state")
            #expect(problem?.isInvalidState == true, "\(lower)–\(upper), minGap \(minGap)")
        }
        let onlyLower = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], state: StateDefinition(lower: 1))),
                                control: "b", field: "state.upper")
        #expect(onlyLower == .missing)
        let onlyUpper = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], state: StateDefinition(upper: 5))),
                                control: "b", field: "state.lower")
        #expect(onlyUpper == .missing)
        let fractional = refusal(of: room(ControlDefinition(id: "b", type: "range", scale: [0, 9], state: StateDefinition(lower: 0.5, upper: 3))),
                                 control: "b", field: "state.lower")
        #expect(fractional == .notInteger)
    }

    @Test("a colour's initial hex that is not #RRGGBB is refused")
    func invalidColorHex() {
        for hex in ["#12345", "336699", "#GG0000", "#1234567", ""] {
            let problem = refusal(of: room(ControlDefinition(id: "c", type: "color", state: StateDefinition(hex: hex))),
                                  control: "c", field: "state.hex")
            #expect(problem?.isInvalidState == true, "'\(hex)'")
        }
    }

    @Test("a colour's initial channel outside [0, 1] or off its grid is refused")
    func invalidColorChannel() {
        let red = refusal(of: room(ControlDefinition(id: "c", type: "color", state: StateDefinition(red: 1.5))), control: "c", field: "state.red")
        #expect(red?.isInvalidState == true)
        let green = refusal(of: room(ControlDefinition(id: "c", type: "color", state: StateDefinition(green: -0.1))), control: "c", field: "state.green")
        #expect(green?.isInvalidState == true)
        let blue = refusal(of: room(ControlDefinition(id: "c", type: "color", step: 1.0 / 255, state: StateDefinition(blue: 0.5))),
                           control: "c", field: "state.blue")
        #expect(blue?.isInvalidState == true)
    }

    @Test("a gauge's initial value that is not finite is refused")
    func invalidGaugeState() {
        let problem = refusal(of: room(ControlDefinition(id: "v", type: "gauge", min: 0, max: 170, state: StateDefinition(value: .infinity))),
                              control: "v", field: "state.value")
        #expect(problem == .notFinite)
    }

    // MARK: the room

    @Test("dots are fine inside an id, but . and .. alone (URL dot segments) are not")
    func dotIDs() {
        #expect(RoomSchema.isValidID("v1.2") && RoomSchema.isValidID("...") && RoomSchema.isValidID(".hidden"))
        #expect(!RoomSchema.isValidID(".") && !RoomSchema.isValidID(".."))
    }

    @Test("a room without an id or with a bad one is refused")
    func badRoomID() {
        let control = ControlDefinition(id: "g", type: "slider", min: 0, max: 1)
        let missing = refusal(of: RoomDefinition(controls: [control]), control: nil, field: "id")
        #expect(missing == .missing)
        for id in ["my room", "a/b", "", String(repeating: "r", count: 65), ".", ".."] {
            let problem = refusal(of: RoomDefinition(id: id, controls: [control]), control: nil, field: "id")
            #expect(problem == .badID, "'\(id)'")
        }
    }

    @Test("a room with no controls, or no controls field, is refused")
    func emptyControls() {
        let empty = refusal(of: RoomDefinition(id: "r", controls: []), control: nil, field: "controls")
        #expect(empty == .empty)
        let missing = refusal(of: RoomDefinition(id: "r"), control: nil, field: "controls")
        #expect(missing == .missing)
    }

    // MARK: accepted schemas

    @Test("the demo room's definitions are accepted with the protocol's kinds and initial states")
    func demoLikeRoomValidates() throws {
        let schema = try #require(accepted(RoomDefinition(id: "demo", title: "Demo", controls: [
            ControlDefinition(id: "size", type: "snap", label: "Circle size", values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt",
                              state: StateDefinition(index: 2)),
            ControlDefinition(id: "blanks", type: "range", label: "Blank cells", scale: [0, 9], operable: [0, 3], minGap: 1,
                              state: StateDefinition(lower: 0, upper: 1)),
            ControlDefinition(id: "color", type: "color", label: "Colour", step: 1.0 / 255, state: StateDefinition(hex: "#336699")),
            ControlDefinition(id: "gain", type: "slider", label: "Gain", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.5)),
            ControlDefinition(id: "bpm", type: "gauge", label: "BPM", min: 0, max: 170, state: StateDefinition(value: 67)),
        ])))
        #expect(schema.id == "demo")
        #expect(schema.title == "Demo")
        #expect(schema.controls.map(\.id) == ["size", "blanks", "color", "gain", "bpm"])
        #expect(schema.controls.map(\.kind) == [
            .snap(SnapSpec(values: [20, 40, 60, 80, 100], layout: .ordinal, unit: "pt")),
            .range(RangeMath(scale: 0...9, operable: 0...3, minGap: 1)),
            .color(step: 1.0 / 255),
            .slider(SliderMath(min: 0, max: 1, step: 0.01)),
            .gauge(GaugeMath(min: 0, max: 170)),
        ])
        #expect(schema.controls.map(\.initial) == [
            .snap(index: 2, value: 60),
            .range(RangeState(lower: 0, upper: 1)),
            .color(RGB(red: 0.2, green: 0.4, blue: 0.6)),
            .slider(value: 0.5),
            .gauge(value: 67, fraction: 67.0 / 170),
        ])
        for control in schema.controls {
            #expect(control.isValid(control.initial), "\(control.id)")
        }
        #expect(schema == RoomSchema.demo)
    }

    @Test("a label defaults to the id, a commit mode to release, and a room title to its id")
    func labelCommitAndTitleDefaults() throws {
        let schema = try #require(accepted(RoomDefinition(id: "r", controls: [
            ControlDefinition(id: "plain", type: "slider", min: 0, max: 1),
            ControlDefinition(id: "live", type: "slider", label: "Live one", commit: "live", min: 0, max: 1),
        ])))
        #expect(schema.title == "r")
        #expect(schema.controls[0].label == "plain")
        #expect(schema.controls[0].commit == .release)
        #expect(schema.controls[1].label == "Live one")
        #expect(schema.controls[1].commit == .live)
    }

    @Test("a range's operable part defaults to its scale and its minGap to 1")
    func rangeDefaults() throws {
        let control = try #require(only(ControlDefinition(id: "b", type: "range", scale: [-3, 7])))
        #expect(control.kind == .range(RangeMath(scale: -3...7, operable: -3...7, minGap: 1)))
        #expect(control.initial == .range(RangeState(lower: -3, upper: -2)))
    }

    @Test("a snap slider's layout defaults to ordinal and its unit to nothing")
    func snapDefaults() throws {
        let control = try #require(only(ControlDefinition(id: "s", type: "snap", values: [1, 4, 9])))
        #expect(control.kind == .snap(SnapSpec(values: [1, 4, 9], layout: .ordinal, unit: "")))
        let proportional = try #require(only(ControlDefinition(id: "s", type: "snap", values: [1, 4, 9], layout: "proportional")))
        #expect(proportional.kind == .snap(SnapSpec(values: [1, 4, 9], layout: .proportional)))
    }

    @Test("a missing state starts each kind at its documented default")
    func missingStateDefaults() throws {
        let schema = try #require(accepted(RoomDefinition(id: "r", controls: [
            ControlDefinition(id: "slider", type: "slider", min: -2, max: 5, step: 0.5),
            ControlDefinition(id: "snap", type: "snap", values: [3, 6, 9]),
            ControlDefinition(id: "range", type: "range", scale: [0, 20], operable: [4, 15], minGap: 3),
            ControlDefinition(id: "color", type: "color"),
            ControlDefinition(id: "gauge", type: "gauge", min: 10, max: 20),
        ])))
        #expect(schema.controls.map(\.initial) == [
            .slider(value: -2),
            .snap(index: 0, value: 3),
            .range(RangeState(lower: 4, upper: 7)),
            .color(RGB(red: 0, green: 0, blue: 0)),
            .gauge(value: 10, fraction: 0),
        ])
        if case let .color(rgb) = schema.controls[3].initial { #expect(rgb.hex == "#000000") }
    }

    @Test("given states are kept: a snap value picks its index, a range its thumbs, a colour its channels, a gauge any finite value")
    func givenStatesAreKept() throws {
        let schema = try #require(accepted(RoomDefinition(id: "r", controls: [
            ControlDefinition(id: "snap", type: "snap", values: [3, 6, 9], state: StateDefinition(value: 9)),
            ControlDefinition(id: "range", type: "range", scale: [0, 20], operable: [4, 15], minGap: 3, state: StateDefinition(lower: 5, upper: 15)),
            ControlDefinition(id: "color", type: "color", state: StateDefinition(red: 0.25, green: 1, blue: 0)),
            ControlDefinition(id: "hexcolor", type: "color", state: StateDefinition(hex: "#ff8000")),
            ControlDefinition(id: "gauge", type: "gauge", min: 0, max: 170, state: StateDefinition(value: 200)),
        ])))
        #expect(schema.controls.map(\.initial) == [
            .snap(index: 2, value: 9),
            .range(RangeState(lower: 5, upper: 15)),
            .color(RGB(red: 0.25, green: 1, blue: 0)),
            .color(RGB(red: 1, green: 128.0 / 255, blue: 0)),
            .gauge(value: 200, fraction: 1),
        ])
    }

    @Test("decimal steps inexact in binary are accepted: 0.01 over 0–1, 0.1 over 0–0.3, 0.05 over 0–4.35 and 1/255 for colour")
    func inexactDecimalStepsAreAccepted() throws {
        // In binary 0.3/0.1 is 2.9999999999999996 and 4.35/0.05 is 86.99999999999999:
        // whole to any precision a person writes, so they must count as whole.
        for (lo, hi, step) in [(0.0, 0.3, 0.1), (0.1, 0.7, 0.2), (0.0, 4.35, 0.05), (-0.3, 0.1, 0.1)] {
            let control = only(ControlDefinition(id: "s", type: "slider", min: lo, max: hi, step: step))
            #expect(control?.kind == .slider(SliderMath(min: lo, max: hi, step: step)), "\(step) over \(lo)–\(hi)")
        }
        let gain = try #require(only(ControlDefinition(id: "g", type: "slider", min: 0, max: 1, step: 0.01, state: StateDefinition(value: 0.57))))
        #expect(gain.initial == .slider(value: 0.57))
        let tenths = try #require(only(ControlDefinition(id: "t", type: "slider", min: 0, max: 3, step: 0.1, state: StateDefinition(value: 0.3))))
        #expect(tenths.initial == .slider(value: 0.3))
        let color = try #require(only(ControlDefinition(id: "c", type: "color", step: 1.0 / 255, state: StateDefinition(red: 0.2, green: 0.6, blue: 1))))
        #expect(color.initial == .color(RGB(red: 0.2, green: 0.6, blue: 1)))
        let fine = try #require(only(ControlDefinition(id: "f", type: "color", step: 0.01)))
        #expect(fine.kind == .color(step: 0.01))
    }

    @Test("a minGap of zero lets a range start with both thumbs together")
    func zeroMinGapAllowsTouchingThumbs() throws {
        let control = try #require(only(ControlDefinition(id: "b", type: "range", scale: [0, 5], operable: [2, 2], minGap: 0)))
        #expect(control.initial == .range(RangeState(lower: 2, upper: 2)))
    }
}

private extension SchemaError.Problem {
    var isInvalidState: Bool {
        if case .invalidState = self { return true }
        return false
    }

    /// The step count a `stepDoesNotDivide` reports, or nil for any other problem.
    var stepsMade: Double? {
        if case let .stepDoesNotDivide(steps) = self { return steps }
        return nil
    }
}
