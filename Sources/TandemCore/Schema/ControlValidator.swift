/// Turns one `ControlDefinition` into a `Control`, or names the first field that is wrong.
struct ControlValidator {
    let raw: ControlDefinition
    /// The control's id when usable, else `#position`, for error messages.
    let name: String
    /// How long labels and how many snap values may be.
    let caps: SchemaCaps

    init(_ raw: ControlDefinition, position: Int, caps: SchemaCaps = .standard) {
        self.raw = raw
        self.caps = caps
        if let id = raw.id, RoomSchema.isValidID(id) { name = id } else { name = "#\(position)" }
    }

    func control() throws(SchemaError) -> Control {
        guard let id = raw.id else { throw fail("id", .missing) }
        guard RoomSchema.isValidID(id) else { throw fail("id", .badID) }
        guard let type = raw.type else { throw fail("type", .missing) }
        if let label = raw.label, !SchemaCaps.fits(label, caps.label) { throw fail("label", .tooLong(caps.label)) }
        try text(raw.group, "group", cap: caps.group)
        try text(raw.description, "description", cap: caps.description)
        let commit: CommitMode
        if let text = raw.commit {
            guard let mode = CommitMode(rawValue: text) else {
                throw fail("commit", .unknownOption(text, allowed: CommitMode.allCases.map(\.rawValue)))
            }
            commit = mode
        } else {
            commit = .release
        }
        let kind: ControlKind
        let initial: ControlState
        switch type {
        case "slider": (kind, initial) = try slider()
        case "snap": (kind, initial) = try snap()
        case "range": (kind, initial) = try range()
        case "color": (kind, initial) = try color()
        case "gauge": (kind, initial) = try gauge()
        case "toggle": (kind, initial) = try toggle()
        case "xy": (kind, initial) = try xy()
        case "button": (kind, initial) = try button()
        default: throw fail("type", .unknownType(type))
        }
        switch kind {
        case .toggle, .xy, .button: break // checked their state fields themselves
        default: try stateFields(allowed: ["value", "index", "lower", "upper", "red", "green", "blue", "hex"])
        }
        var unit = ""
        if case .snap = kind {} else if let u = raw.unit { unit = u } // a snap's unit lives in its SnapSpec
        if raw.series != nil {
            switch kind {
            case .slider, .snap, .toggle, .gauge: break
            default: throw fail("series", .notAllowed(type: type)) // a series is of one number
            }
        }
        return Control(id: id, label: raw.label ?? id, commit: commit, kind: kind, initial: initial,
                       group: raw.group, description: raw.description, unit: unit, keepsSeries: raw.series)
    }

    // MARK: kinds

    private func slider() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["min", "max", "step", "scale", "digits", "unit"], type: "slider")
        if raw.scale != nil { throw fail("scale", .wrongType(expected: "\"linear\" or \"log\"")) }
        try unit(raw.unit, "unit")
        let math = try sliderMath(AxisDefinition(min: raw.min, max: raw.max, step: raw.step, scale: raw.scaleName, digits: raw.digits), prefix: "")
        let value = try stateNumber(\.value, "value") ?? math.min
        guard math.isValid(value) else {
            throw fail("state.value", .invalidState("\(value) is not a value of the slider (\(Self.describe(math)))"))
        }
        return (.slider(math), .slider(value: value))
    }

    /// A slider's (or an xy axis') math from its fields, each error naming
    /// `prefix` + field (`x.min`, or `min` for a slider).
    private func sliderMath(_ axis: AxisDefinition, prefix: String) throws(SchemaError) -> SliderMath {
        let (min, max) = try bounds(axis.min, axis.max, prefix: prefix)
        var scale = SliderScale.linear
        if let text = axis.scale {
            guard let s = SliderScale(rawValue: text) else {
                throw fail(prefix + "scale", .unknownOption(text, allowed: SliderScale.allCases.map(\.rawValue)))
            }
            scale = s
        }
        var digits: Int?
        if let d = axis.digits {
            let n = try integer(d, prefix + "digits")
            guard (1...15).contains(n) else { throw fail(prefix + "digits", .outOfRange(1...15)) }
            digits = n
        }
        switch scale {
        case .log:
            guard min > 0 else { throw fail(prefix + "min", .conflicts("must be above 0 on a log scale")) }
            guard (max / min).isFinite else { throw fail(prefix + "max", .conflicts("must be at most about 1e308 times min on a log scale")) }
            guard axis.step == nil else { throw fail(prefix + "step", .conflicts("a log slider has no step; use digits")) }
            return SliderMath(min: min, max: max, scale: .log, digits: digits ?? SliderMath.defaultLogDigits)
        case .linear:
            let step = try step(axis.step, span: max - min, field: prefix + "step")
            if step != nil, digits != nil {
                throw fail(prefix + "digits", .conflicts("a slider with a step has no digits: the step sets its precision"))
            }
            return SliderMath(min: min, max: max, step: step, digits: digits)
        }
    }

    /// "0 to 1 in steps of 0.1", "20 to 20000 on a log scale to 3 significant digits".
    private static func describe(_ math: SliderMath) -> String {
        var text = "\(math.min) to \(math.max)"
        if math.scale == .log { text += " on a log scale" }
        if let step = math.step { text += " in steps of \(step)" }
        if let digits = math.digits { text += " to \(digits) significant digits" }
        return text
    }

    private func snap() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["values", "layout", "unit", "labels"], type: "snap")
        guard let values = raw.values else { throw fail("values", .missing) }
        guard !values.isEmpty else { throw fail("values", .empty) }
        guard values.count <= caps.snapValues else { throw fail("values", .tooMany(caps.snapValues)) }
        if let unit = raw.unit, !SchemaCaps.fits(unit, caps.unit) { throw fail("unit", .tooLong(caps.unit)) }
        for (i, v) in values.enumerated() {
            guard v.isFinite else { throw fail("values", .notFinite) }
            if i > 0, !(v > values[i - 1]) { throw fail("values", .notAscending(at: i)) }
        }
        var layout = SnapLayout.ordinal
        if let text = raw.layout {
            guard let l = SnapLayout(rawValue: text) else {
                throw fail("layout", .unknownOption(text, allowed: SnapLayout.allCases.map(\.rawValue)))
            }
            layout = l
        }
        var index = 0
        if let i = try stateNumber(\.index, "index") {
            guard i == i.rounded(), i >= 0, i < Double(values.count) else {
                throw fail("state.index", .invalidState("must be a whole number from 0 to \(values.count - 1)"))
            }
            index = Int(i)
            if let v = raw.state?.value, v != values[index] {
                throw fail("state.value", .invalidState("\(v) is not values[\(index)] = \(values[index])"))
            }
        } else if let v = try stateNumber(\.value, "value") {
            guard let i = values.firstIndex(of: v) else {
                throw fail("state.value", .invalidState("\(v) is not one of values"))
            }
            index = i
        }
        if let labels = raw.labels {
            guard labels.count == values.count else { throw fail("labels", .countMismatch(expected: values.count)) }
            for (i, label) in labels.enumerated() { try text(label, "labels[\(i)]", cap: caps.shortLabel) }
        }
        let spec = SnapSpec(values: values, layout: layout, unit: raw.unit ?? "", labels: raw.labels)
        return (.snap(spec), .snap(index: index, value: values[index]))
    }

    private func range() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["scale", "operable", "minGap"], type: "range")
        if raw.scaleName != nil { throw fail("scale", .wrongType(expected: "[lo, hi]")) }
        guard let rawScale = raw.scale else { throw fail("scale", .missing) }
        let scale = try integerBounds(rawScale, "scale", allowEqual: false)
        let operable = try raw.operable.map { (o) throws(SchemaError) in try integerBounds(o, "operable", allowEqual: true) } ?? scale
        guard scale.contains(operable.lowerBound), scale.contains(operable.upperBound) else {
            throw fail("operable", .outsideScale)
        }
        var minGap = 1
        if let g = raw.minGap {
            minGap = try integer(g, "minGap")
            guard minGap >= 0 else { throw fail("minGap", .notPositive) }
        }
        let span = operable.upperBound - operable.lowerBound
        guard span >= minGap else { throw fail("operable", .spanSmallerThanGap(span: span, minGap: minGap)) }
        let math = RangeMath(scale: scale, operable: operable, minGap: minGap)
        var state = RangeState(lower: operable.lowerBound, upper: operable.lowerBound + minGap)
        let lower = try stateNumber(\.lower, "lower")
        let upper = try stateNumber(\.upper, "upper")
        if lower != nil || upper != nil {
            guard let lower else { throw fail("state.lower", .missing) }
            guard let upper else { throw fail("state.upper", .missing) }
            state = RangeState(lower: try integer(lower, "state.lower"), upper: try integer(upper, "state.upper"))
            guard math.isValid(state) else {
                throw fail("state", .invalidState("lower \(state.lower), upper \(state.upper) must lie in operable [\(operable.lowerBound), \(operable.upperBound)] at least minGap \(minGap) apart"))
            }
        }
        return (.range(math), .range(state))
    }

    private func color() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["step"], type: "color")
        let step = try step(raw.step, span: 1, field: "step")
        let math = ColorMath.channelMath(step: step)
        var rgb = RGB(red: 0, green: 0, blue: 0)
        if let hex = raw.state?.hex {
            guard let parsed = ColorMath.parseHex(hex) else {
                throw fail("state.hex", .invalidState("'\(hex)' is not #RRGGBB"))
            }
            rgb = RGB(red: math.setting(parsed.red), green: math.setting(parsed.green), blue: math.setting(parsed.blue))
        }
        let channels: [(ColorChannel, KeyPath<StateDefinition, Double?>)] = [(.red, \.red), (.green, \.green), (.blue, \.blue)]
        for (channel, path) in channels {
            guard let v = try stateNumber(path, channel.rawValue) else { continue }
            guard math.isValid(v) else {
                throw fail("state.\(channel.rawValue)", .invalidState("\(v) is not a level from 0 to 1\(step.map { " in steps of \($0)" } ?? "")"))
            }
            rgb[channel] = v
        }
        return (.color(step: step), .color(rgb))
    }

    private func gauge() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["min", "max", "unit"], type: "gauge")
        try unit(raw.unit, "unit")
        let (min, max) = try bounds(raw.min, raw.max, prefix: "")
        let math = GaugeMath(min: min, max: max)
        let value = try stateNumber(\.value, "value") ?? min
        return (.gauge(math), .gauge(value: value, fraction: math.fraction(of: value)))
    }

    private func toggle() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: [], type: "toggle")
        try stateFields(allowed: ["on"])
        return (.toggle, .toggle(on: raw.state?.on ?? false))
    }

    private func xy() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["x", "y"], type: "xy")
        guard let xAxis = raw.x else { throw fail("x", .missing) }
        guard let yAxis = raw.y else { throw fail("y", .missing) }
        let spec = XYSpec(x: try axis(xAxis, "x"), y: try axis(yAxis, "y"))
        try stateFields(allowed: ["x", "y"])
        let x = try axisState(\.x, "x", spec.x.math)
        let y = try axisState(\.y, "y", spec.y.math)
        return (.xy(spec), .xy(x: x, y: y))
    }

    /// A pad axis' starting value: `state.x` or `state.y` when given (and a value of the axis), else its min.
    private func axisState(_ path: KeyPath<StateDefinition, Double?>, _ name: String, _ math: SliderMath) throws(SchemaError) -> Double {
        guard let v = try stateNumber(path, name) else { return math.min }
        guard math.isValid(v) else {
            throw fail("state.\(name)", .invalidState("\(v) is not a value of axis \(name) (\(Self.describe(math)))"))
        }
        return v
    }

    private func axis(_ raw: AxisDefinition, _ name: String) throws(SchemaError) -> Axis {
        let math = try sliderMath(raw, prefix: name + ".")
        try unit(raw.unit, name + ".unit")
        try text(raw.label, name + ".label", cap: caps.shortLabel)
        return Axis(math: math, unit: raw.unit ?? "", label: raw.label ?? "")
    }

    private func button() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: [], type: "button")
        try stateFields(allowed: ["presses"])
        var presses = 0
        if let p = try stateNumber(\.presses, "presses") {
            presses = try integer(p, "state.presses")
            guard presses >= 0, presses <= ButtonMath.maxPresses else {
                throw fail("state.presses", .invalidState("must be a whole number from 0 to 2^53"))
            }
        }
        return (.button, .button(presses: presses))
    }

    // MARK: fields

    private func fail(_ field: String, _ problem: SchemaError.Problem) -> SchemaError {
        SchemaError(control: name, field: field, problem: problem)
    }

    /// Refuses type-specific fields that belong to another type: a typo in a
    /// room file should be an error, not a silently ignored setting.
    private func only(allowed: Set<String>, type: String) throws(SchemaError) {
        let present: [(String, Bool)] = [
            ("min", raw.min != nil), ("max", raw.max != nil), ("step", raw.step != nil),
            ("values", raw.values != nil), ("layout", raw.layout != nil), ("unit", raw.unit != nil),
            ("scale", raw.scale != nil || raw.scaleName != nil), ("operable", raw.operable != nil),
            ("minGap", raw.minGap != nil), ("digits", raw.digits != nil), ("labels", raw.labels != nil),
            ("x", raw.x != nil), ("y", raw.y != nil),
        ]
        for (field, isSet) in present where isSet && !allowed.contains(field) {
            throw fail(field, .notAllowed(type: type))
        }
    }

    private func bounds(_ min: Double?, _ max: Double?, prefix: String) throws(SchemaError) -> (Double, Double) {
        guard let min else { throw fail(prefix + "min", .missing) }
        guard let max else { throw fail(prefix + "max", .missing) }
        guard min.isFinite else { throw fail(prefix + "min", .notFinite) }
        guard max.isFinite else { throw fail(prefix + "max", .notFinite) }
        guard min < max, (max - min).isFinite else { throw fail(prefix + "max", .badBounds) }
        return (min, max)
    }

    /// An optional text field: when present, 1 to `cap` characters and at most eight bytes a character.
    private func text(_ value: String?, _ field: String, cap: Int) throws(SchemaError) {
        guard let value else { return }
        guard !value.isEmpty else { throw fail(field, .emptyText) }
        guard SchemaCaps.fits(value, cap) else { throw fail(field, .tooLong(cap)) }
    }

    /// An optional unit: at most `caps.unit` characters (empty is no unit).
    private func unit(_ value: String?, _ field: String) throws(SchemaError) {
        if let value, !SchemaCaps.fits(value, caps.unit) { throw fail(field, .tooLong(caps.unit)) }
    }

    /// Refuses state fields of another kind (`{"value": 1}` on a toggle), for
    /// the kinds added in v1.1; the older kinds keep ignoring them as before.
    private func stateFields(allowed: Set<String>) throws(SchemaError) {
        guard let state = raw.state else { return }
        let present: [(String, Bool)] = [
            ("value", state.value != nil), ("index", state.index != nil), ("lower", state.lower != nil),
            ("upper", state.upper != nil), ("red", state.red != nil), ("green", state.green != nil),
            ("blue", state.blue != nil), ("hex", state.hex != nil), ("on", state.on != nil),
            ("x", state.x != nil), ("y", state.y != nil), ("presses", state.presses != nil),
        ]
        for (field, isSet) in present where isSet && !allowed.contains(field) {
            throw fail("state.\(field)", .notAllowed(type: raw.type ?? ""))
        }
    }

    private func step(_ step: Double?, span: Double, field: String) throws(SchemaError) -> Double? {
        guard let step else { return nil }
        guard step.isFinite else { throw fail(field, .notFinite) }
        guard step > 0 else { throw fail(field, .notPositive) }
        let steps = span / step
        // Decimal steps are inexact in binary (0.3/0.1 is 2.9999999999999996),
        // so "whole" allows a relative error far below any step a person writes.
        guard steps.rounded() >= 1, abs(steps - steps.rounded()) <= 1e-9 * Swift.max(1, steps), steps <= 1e9 else {
            throw fail(field, .stepDoesNotDivide(steps: steps))
        }
        return step
    }

    private func integer(_ x: Double, _ field: String) throws(SchemaError) -> Int {
        guard x.isFinite else { throw fail(field, .notFinite) }
        guard x == x.rounded(), abs(x) <= 1e15 else { throw fail(field, .notInteger) }
        return Int(x)
    }

    private func integerBounds(_ pair: [Double], _ field: String, allowEqual: Bool) throws(SchemaError) -> ClosedRange<Int> {
        guard pair.count == 2 else { throw fail(field, .badBounds) }
        let lo = try integer(pair[0], field)
        let hi = try integer(pair[1], field)
        guard allowEqual ? lo <= hi : lo < hi else { throw fail(field, .badBounds) }
        return lo...hi
    }

    private func stateNumber(_ path: KeyPath<StateDefinition, Double?>, _ field: String) throws(SchemaError) -> Double? {
        guard let v = raw.state?[keyPath: path] else { return nil }
        guard v.isFinite else { throw fail("state.\(field)", .notFinite) }
        return v
    }
}
