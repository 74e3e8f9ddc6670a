import TandemCore

/// A room schema drawn from the fuzzer's bytes that is always valid: each
/// control is drawn with fuzzed parameters and, when the validator refuses
/// it, replaced by a plain control of the same type, so the room target
/// spends its time on the engine rather than on schema errors (the schema
/// target covers those).
enum FuzzedSchema {
    static func make(_ input: inout FuzzInput) -> RoomSchema {
        let count = 1 + input.choose(6)
        var controls: [ControlDefinition] = []
        for k in 0..<count {
            let id = "k\(k)"
            let drawn = control(id, &input)
            controls.append(isValid(drawn) ? drawn : plain(id, type: drawn.type ?? "slider", commit: drawn.commit))
        }
        return try! RoomSchema(validating: RoomDefinition(id: "fuzzed", title: "Fuzzed", controls: controls))
    }

    static func limits(_ input: inout FuzzInput) -> RoomLimits {
        RoomLimits(holdTimeout: input.pick([10, 0.5, 3]), messagesPerSecond: input.pick([300, 300, 4]),
                   burst: input.pick([600, 600, 3]), pendingRejects: input.pick([32, 2, 0]),
                   undoDepth: input.pick([50, 3, 1, 0]), presence: input.pick([64, 64, 2, 1, 0]))
    }

    private static func isValid(_ definition: ControlDefinition) -> Bool {
        (try? RoomSchema(validating: RoomDefinition(id: "probe", controls: [definition]))) != nil
    }

    private static func plain(_ id: String, type: String, commit: String?) -> ControlDefinition {
        switch type {
        case "snap": ControlDefinition(id: id, type: type, commit: commit, values: [1, 2, 3])
        case "range": ControlDefinition(id: id, type: type, commit: commit, scale: [0, 10])
        case "color": ControlDefinition(id: id, type: type, commit: commit)
        case "gauge": ControlDefinition(id: id, type: type, min: 0, max: 1)
        default: ControlDefinition(id: id, type: "slider", commit: commit, min: 0, max: 1)
        }
    }

    private static func control(_ id: String, _ input: inout FuzzInput) -> ControlDefinition {
        let commit = input.pick([nil, "release", "live"])
        var d = ControlDefinition(id: id, commit: commit)
        switch input.choose(5) {
        case 0:
            d.type = "slider"
            let min = bound(&input)
            let max = min + span(&input)
            d.min = min
            d.max = max
            switch input.choose(4) {
            case 0: d.step = (max - min) / Double(1 + input.choose(255))
            case 1: d.step = input.pick([0.01, 0.1, 0.3, 1, 10, 1e-6])
            default: break
            }
            if input.bool() { d.state = StateDefinition(value: min + (max - min) * Double(input.choose(5)) / 4) }
        case 1:
            d.type = "snap"
            var values = [bound(&input)]
            for _ in 0..<input.choose(8) { values.append(values.last! + span(&input)) }
            d.values = values
            d.layout = input.pick([nil, "ordinal", "proportional"])
            if input.bool() { d.state = StateDefinition(index: Double(input.choose(values.count))) }
        case 2:
            d.type = "range"
            let lo = Double(Int16(bitPattern: input.uint16())) * input.pick([1, 1, 1000, 1e10])
            let width = Double(1 + input.choose(40)) * input.pick([1, 1, 100, 1e4])
            d.scale = [lo, lo + width]
            let inset = Double(input.choose(4))
            if input.bool() { d.operable = [lo + inset, lo + width - Double(input.choose(4))] }
            d.minGap = input.pick([nil, 0, 1, 2, 5, width])
            if input.bool() {
                let lower = lo + inset + Double(input.choose(3))
                d.state = StateDefinition(lower: lower, upper: lower + Double(input.choose(12)))
            }
        case 3:
            d.type = "color"
            d.step = input.pick([nil, 1.0 / 255, 0.1, 0.25, 1.0 / 3, 1, 0.5])
            if input.bool() { d.state = StateDefinition(red: Double(input.choose(3)) / 2, hex: input.pick([nil, "#336699", "#ffffff", "#000000"])) }
        default:
            d.type = "gauge"
            let min = bound(&input)
            d.min = min
            d.max = min + span(&input)
            if input.bool() { d.state = StateDefinition(value: input.double()) }
        }
        return d
    }

    /// A low end: usually small, sometimes at the edge of what a double holds.
    private static func bound(_ input: inout FuzzInput) -> Double {
        switch input.choose(4) {
        case 0: input.pick([0, -1, 1e-300, -1e300, 1e15, -170])
        case 1: input.double()
        default: Double(Int(input.byte()) - 128) / 4
        }
    }

    /// A positive width: usually ordinary, sometimes tiny or huge.
    private static func span(_ input: inout FuzzInput) -> Double {
        input.pick([1, 1, 0.5, 10, 170, 0.01, 1e-9, 1e300, 3])
    }
}
