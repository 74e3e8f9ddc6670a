import TandemCore
import TandemWire

/// Every invariant of one control's state, written out here again rather than
/// calling `Control.isValid`, so that a bug there cannot hide a bug it should
/// catch. Both are checked: they must agree that the state is valid.
func requireValid(_ state: ControlState, of control: Control, _ context: @autoclosure () -> String) {
    require(control.isValid(state), "\(context()): \(control.id) = \(state) fails Control.isValid")
    switch (control.kind, state) {
    case let (.slider(math), .slider(value)):
        requireOnAxis(value, math, "slider \(control.id)", context())
    case let (.xy(spec), .xy(x, y)):
        requireOnAxis(x, spec.x.math, "xy \(control.id) x", context())
        requireOnAxis(y, spec.y.math, "xy \(control.id) y", context())
    case (.toggle, .toggle):
        break // a Bool cannot break anything
    case let (.button, .button(presses)):
        require(presses >= 0 && presses <= 9_007_199_254_740_992, "\(context()): button \(control.id) presses \(presses)")
    case let (.snap(spec), .snap(index, value)):
        require(spec.values.indices.contains(index), "\(context()): snap \(control.id) index \(index) of \(spec.values.count) values")
        require(value == spec.values[index], "\(context()): snap \(control.id) value \(value) is not values[\(index)] = \(spec.values[index])")
    case let (.range(math), .range(range)):
        require(math.operable.contains(range.lower) && math.operable.contains(range.upper),
                "\(context()): range \(control.id) \(range.lower)...\(range.upper) outside operable \(math.operable)")
        require(range.lower + math.minGap <= range.upper,
                "\(context()): range \(control.id) lower \(range.lower) + minGap \(math.minGap) > upper \(range.upper)")
        require(math.scale.contains(math.operable.lowerBound) && math.scale.contains(math.operable.upperBound),
                "\(context()): range \(control.id) operable \(math.operable) outside scale \(math.scale)")
    case let (.color(step), .color(rgb)):
        for channel in ColorChannel.allCases {
            let level = rgb[channel]
            require(level.isFinite && level >= 0 && level <= 1, "\(context()): colour \(control.id) \(channel) = \(level) outside [0, 1]")
            if let step {
                require(onGrid(level, min: 0, max: 1, step: step),
                        "\(context()): colour \(control.id) \(channel) = \(level) off its grid of \(step)")
            }
        }
        requireHexMatches(rgb, control.id, context())
    case let (.gauge(math), .gauge(value, fraction)):
        require(value.isFinite, "\(context()): gauge \(control.id) value \(value)")
        require(fraction >= 0 && fraction <= 1, "\(context()): gauge \(control.id) fraction \(fraction) outside [0, 1]")
        let expected = Swift.min(Swift.max((value - math.min) / (math.max - math.min), 0), 1)
        require(fraction == expected, "\(context()): gauge \(control.id) fraction \(fraction), expected \(expected)")
    default:
        require(false, "\(context()): \(control.id) of kind \(control.kind.typeName) holds state \(state)")
    }
}

/// A slider's or a pad axis' value: finite, inside [min, max], on its grid
/// when it has a step; a log axis stays strictly positive.
func requireOnAxis(_ value: Double, _ math: SliderMath, _ name: String, _ context: @autoclosure () -> String) {
    require(value.isFinite && value >= math.min && value <= math.max,
            "\(context()): \(name) value \(value) outside [\(math.min), \(math.max)]")
    if let step = math.step {
        require(onGrid(value, min: math.min, max: math.max, step: step),
                "\(context()): \(name) value \(value) is off its grid of \(step) from \(math.min)")
    }
    if math.scale == .log { require(value > 0, "\(context()): log \(name) value \(value) is not positive") }
}

/// The `hex` a colour state carries on the wire is the channels, each
/// `round(c * 255)` half away from zero, as two upper-case hex digits.
func requireHexMatches(_ rgb: RGB, _ id: String, _ context: @autoclosure () -> String) {
    // Encoding and parsing a state is the dearest check of a step; a colour seen once is settled.
    if verifiedColors.contains(rgb) { return }
    if verifiedColors.count > 4096 { verifiedColors.removeAll() }
    verifiedColors.insert(rgb)
    let bytes = OutboundEncoder.state(.color(rgb))
    guard let json = try? JSONParser.parse(bytes) else {
        require(false, "\(context()): the state of colour \(id) encodes to invalid JSON: \(String(decoding: bytes, as: UTF8.self))")
        return
    }
    let digits = Array("0123456789ABCDEF")
    var expected = "#"
    for level in [rgb.red, rgb.green, rgb.blue] {
        let byte = Int((Swift.min(Swift.max(level, 0), 1) * 255).rounded(.toNearestOrAwayFromZero))
        expected.append(digits[byte / 16])
        expected.append(digits[byte % 16])
    }
    require(json["hex"] == .string(expected), "\(context()): colour \(id) \(rgb) is sent as \(json["hex"] ?? .null), expected \(expected)")
    require(json["red"] == .number(rgb.red) && json["green"] == .number(rgb.green) && json["blue"] == .number(rgb.blue),
            "\(context()): colour \(id) channels \(rgb) do not survive the wire: \(json)")
}

/// Whether `value` is on the grid of `step` over `[min, max]`, as protocol.md's
/// math defines it: `n = round((max - min) / step)` whole steps, point `k` at
/// `min + (max - min) * k / n` (the last one `max` itself), to within 1e-9 of the span.
func onGrid(_ value: Double, min: Double, max: Double, step: Double) -> Bool {
    let span = max - min
    let n = (span / step).rounded()
    guard n >= 1 else { return false }
    let k = ((value - min) / span * n).rounded()
    let point = k == n ? max : min + span * (k / n)
    return abs(point - value) <= 1e-9 * Swift.max(1, span)
}

/// Colours whose wire form was already checked (the fuzzers run on one thread).
nonisolated(unsafe) private var verifiedColors: Set<RGB> = []
