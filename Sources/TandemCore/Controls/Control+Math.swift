/// The protocol's math, control by control, over whole states.
///
/// Every function here takes the state that constrains the result (`context`:
/// the displayed state for a preview, the committed state for a commit) and
/// returns the whole new state. None of them ever returns a state that breaks
/// an invariant when `context` keeps them all.
extension Control {
    /// The track fraction at which `thumb` sits in `state`: where a drag without `at` starts.
    public func position(of thumb: Thumb, in state: ControlState) -> Double {
        switch (kind, state) {
        case let (.slider(math), .slider(value)):
            return math.position(of: value)
        case let (.snap(spec), .snap(index, _)):
            return SnapMath.position(of: index, values: spec.values, layout: spec.layout)
        case let (.range(math), .range(range)):
            return math.position(of: range[thumb.rangeThumb ?? .lower])
        case let (.color, .color(rgb)):
            return rgb[thumb.colorChannel ?? .red]
        default:
            return 0
        }
    }

    /// `context` with `thumb` put at track fraction `f` (clamped to [0, 1]), by the math of the kind.
    public func placing(_ thumb: Thumb, at f: Double, against context: ControlState) -> ControlState {
        switch (kind, context) {
        case let (.slider(math), .slider):
            return .slider(value: math.value(at: f))
        case let (.snap(spec), .snap):
            return snapState(SnapMath.index(at: f, values: spec.values, layout: spec.layout), spec)
        case let (.range(math), .range(range)):
            return .range(math.dragging(thumb.rangeThumb ?? .lower, to: f, against: range))
        case let (.color(step), .color(rgb)):
            var rgb = rgb
            rgb[thumb.colorChannel ?? .red] = ColorMath.channelMath(step: step).value(at: f)
            return .color(rgb)
        default:
            return context
        }
    }

    /// `context` with `thumb` at thumb-value `number` (a snap slider's index, a
    /// range thumb's integer, a channel's level), clamped against `context`
    /// exactly as a drag of that thumb is. This is how a preview becomes a commit.
    public func holding(_ thumb: Thumb, at number: Double, against context: ControlState) -> ControlState {
        switch (kind, context) {
        case let (.slider(math), .slider):
            return .slider(value: math.setting(number))
        case let (.snap(spec), .snap):
            let index = clamp(saturatingInt(roundHalfAway(number)), 0, spec.values.count - 1)
            return snapState(index, spec)
        case let (.range(math), .range(range)):
            return .range(math.placing(thumb.rangeThumb ?? .lower, at: saturatingInt(roundHalfAway(number)), against: range))
        case let (.color(step), .color(rgb)):
            var rgb = rgb
            rgb[thumb.colorChannel ?? .red] = ColorMath.channelMath(step: step).setting(number)
            return .color(rgb)
        default:
            return context
        }
    }

    /// What a `set` of `thumb` to `value` commits on top of `context`.
    ///
    /// snap: the nearest of `values` (ties to the higher index); range: the
    /// thumb clamped like a drag (non-integers rounded half away from zero);
    /// slider and colour channel: clamped, then snapped; gauge: stored as is.
    /// `value` must be finite: the room rejects anything else first.
    public func setting(_ thumb: Thumb?, to value: Double, against context: ControlState) -> ControlState {
        switch kind {
        case let .snap(spec):
            return snapState(SnapMath.nearestIndex(to: value, values: spec.values), spec)
        case let .gauge(math):
            return .gauge(value: value, fraction: math.fraction(of: value))
        default:
            return holding(thumb ?? thumbs[0], at: value, against: context)
        }
    }

    /// What a `step` of `thumb` by `n` commits on top of `context`: snap index ± n,
    /// range thumb ± n (then its clamp), slider ± n steps (no step: n hundredths
    /// of the span), colour channel ± n steps (no step: ± n/255). Never wraps.
    public func stepping(_ thumb: Thumb, by n: Int, from context: ControlState) -> ControlState {
        switch (kind, context) {
        case let (.slider(math), .slider(value)):
            return .slider(value: math.stepping(value, by: n))
        case let (.snap(spec), .snap(index, _)):
            return snapState(SnapMath.stepped(index, by: n, count: spec.values.count), spec)
        case let (.range(math), .range(range)):
            return .range(math.stepping(thumb.rangeThumb ?? .lower, by: n, from: range))
        case let (.color(step), .color(rgb)):
            let channel = thumb.colorChannel ?? .red
            var rgb = rgb
            if step != nil {
                rgb[channel] = ColorMath.channelMath(step: step).stepping(rgb[channel], by: n)
            } else {
                rgb[channel] = unitClamp(rgb[channel] + Double(n) / 255)
            }
            return .color(rgb)
        default:
            return context
        }
    }

    /// `base` with `thumb` replaced by `number` as is, with no clamping: how a
    /// live preview is laid over the committed state to form the displayed state.
    public func overlaying(_ thumb: Thumb, number: Double, onto base: ControlState) -> ControlState {
        switch (kind, base) {
        case let (.snap(spec), .snap):
            return snapState(clamp(saturatingInt(number), 0, spec.values.count - 1), spec)
        case var (.range, .range(range)):
            range[thumb.rangeThumb ?? .lower] = saturatingInt(number)
            return .range(range)
        case var (.color, .color(rgb)):
            rgb[thumb.colorChannel ?? .red] = number
            return .color(rgb)
        case (.slider, .slider):
            return .slider(value: number)
        default:
            return base
        }
    }

    /// Whether `state` is of this control's kind and keeps every invariant.
    public func isValid(_ state: ControlState) -> Bool {
        switch (kind, state) {
        case let (.slider(math), .slider(value)):
            return math.isValid(value)
        case let (.snap(spec), .snap(index, value)):
            return spec.values.indices.contains(index) && spec.values[index] == value
        case let (.range(math), .range(range)):
            return math.isValid(range)
        case let (.color(step), .color(rgb)):
            let math = ColorMath.channelMath(step: step)
            return ColorChannel.allCases.allSatisfy { math.isValid(rgb[$0]) }
        case let (.gauge(math), .gauge(value, fraction)):
            return value.isFinite && fraction == math.fraction(of: value)
        default:
            return false
        }
    }

    /// A colour channel level as a `set` stores it: clamped to [0, 1], then snapped to the step.
    public func channelLevel(_ level: Double) -> Double {
        guard case let .color(step) = kind else { return level }
        return ColorMath.channelMath(step: step).setting(level)
    }

    private func snapState(_ index: Int, _ spec: SnapSpec) -> ControlState {
        .snap(index: index, value: spec.values[index])
    }
}
