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
        if let label = raw.label, label.count > caps.label { throw fail("label", .tooLong(caps.label)) }
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
        default: throw fail("type", .unknownType(type))
        }
        return Control(id: id, label: raw.label ?? id, commit: commit, kind: kind, initial: initial)
    }

    // MARK: kinds

    private func slider() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["min", "max", "step"], type: "slider")
        let (min, max) = try bounds()
        let math = SliderMath(min: min, max: max, step: try step(span: max - min))
        let value = try stateNumber(\.value, "value") ?? min
        guard math.isValid(value) else {
            throw fail("state.value", .invalidState("\(value) is not a value of the slider (\(min) to \(max)\(math.step.map { " in steps of \($0)" } ?? ""))"))
        }
        return (.slider(math), .slider(value: value))
    }

    private func snap() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["values", "layout", "unit"], type: "snap")
        guard let values = raw.values else { throw fail("values", .missing) }
        guard !values.isEmpty else { throw fail("values", .empty) }
        guard values.count <= caps.snapValues else { throw fail("values", .tooMany(caps.snapValues)) }
        if let unit = raw.unit, unit.count > caps.unit { throw fail("unit", .tooLong(caps.unit)) }
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
        let spec = SnapSpec(values: values, layout: layout, unit: raw.unit ?? "")
        return (.snap(spec), .snap(index: index, value: values[index]))
    }

    private func range() throws(SchemaError) -> (ControlKind, ControlState) {
        try only(allowed: ["scale", "operable", "minGap"], type: "range")
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
        let step = try step(span: 1)
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
        try only(allowed: ["min", "max"], type: "gauge")
        let (min, max) = try bounds()
        let math = GaugeMath(min: min, max: max)
        let value = try stateNumber(\.value, "value") ?? min
        return (.gauge(math), .gauge(value: value, fraction: math.fraction(of: value)))
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
            ("scale", raw.scale != nil), ("operable", raw.operable != nil), ("minGap", raw.minGap != nil),
        ]
        for (field, isSet) in present where isSet && !allowed.contains(field) {
            throw fail(field, .notAllowed(type: type))
        }
    }

    private func bounds() throws(SchemaError) -> (Double, Double) {
        guard let min = raw.min else { throw fail("min", .missing) }
        guard let max = raw.max else { throw fail("max", .missing) }
        guard min.isFinite else { throw fail("min", .notFinite) }
        guard max.isFinite else { throw fail("max", .notFinite) }
        guard min < max, (max - min).isFinite else { throw fail("max", .badBounds) }
        return (min, max)
    }

    private func step(span: Double) throws(SchemaError) -> Double? {
        guard let step = raw.step else { return nil }
        guard step.isFinite else { throw fail("step", .notFinite) }
        guard step > 0 else { throw fail("step", .notPositive) }
        let steps = span / step
        // Decimal steps are inexact in binary (0.3/0.1 is 2.9999999999999996),
        // so "whole" allows a relative error far below any step a person writes.
        guard steps.rounded() >= 1, abs(steps - steps.rounded()) <= 1e-9 * Swift.max(1, steps), steps <= 1e9 else {
            throw fail("step", .stepDoesNotDivide(steps: steps))
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
