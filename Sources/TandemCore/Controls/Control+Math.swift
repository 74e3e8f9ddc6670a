/// The protocol's math, control by control, over whole states.
///
/// Every function here takes the state that constrains the result (`context`:
/// the displayed state for a preview, the committed state for a commit) and
/// returns the whole new state. None of them ever returns a state that breaks
/// an invariant when `context` keeps them all.
///
/// Thumb values and pointers have two numbers (`ThumbValue`, `TrackPoint`) for
/// an xy pad's thumb; every other thumb uses the first and leaves the second 0.
/// The one-number forms (`position(of:in:)`, `placing(_:at:against:)` with a
/// `Double`…) are the same math for those thumbs.
extension Control {
    /// The track point at which `thumb` sits in `state`: where a drag without `at` starts.
    public func point(of thumb: Thumb, in state: ControlState) -> TrackPoint {
        switch (kind, state) {
        case let (.slider(math), .slider(value)):
            return TrackPoint(math.position(of: value))
        case let (.snap(spec), .snap(index, _)):
            return TrackPoint(SnapMath.position(of: index, values: spec.values, layout: spec.layout))
        case let (.range(math), .range(range)):
            return TrackPoint(math.position(of: range[thumb.rangeThumb ?? .lower]))
        case let (.color, .color(rgb)):
            return TrackPoint(rgb[thumb.colorChannel ?? .red])
        case let (.xy(spec), .xy(x, y)):
            return spec.point(of: x, y)
        default:
            return TrackPoint(0)
        }
    }

    /// The track fraction at which a one-number `thumb` sits in `state`.
    public func position(of thumb: Thumb, in state: ControlState) -> Double {
        point(of: thumb, in: state).x
    }

    /// `context` with `thumb` put at track point `p` (clamped to [0, 1] on each axis), by the math of the kind.
    public func placing(_ thumb: Thumb, at p: TrackPoint, against context: ControlState) -> ControlState {
        let f = p.x
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
        case let (.xy(spec), .xy):
            return spec.state(at: p.clamped)
        default:
            return context
        }
    }

    /// `context` with a one-number `thumb` put at track fraction `f` (clamped to [0, 1]).
    public func placing(_ thumb: Thumb, at f: Double, against context: ControlState) -> ControlState {
        placing(thumb, at: TrackPoint(f), against: context)
    }

    /// `context` with `thumb` at thumb value `value` (a snap slider's index, a
    /// range thumb's integer, a channel's level, an xy pad's two values, a
    /// toggle's 0 or 1), clamped against `context` exactly as a drag of that
    /// thumb is. This is how a preview becomes a commit, and an undo a state.
    public func holding(_ thumb: Thumb, at value: ThumbValue, against context: ControlState) -> ControlState {
        let number = value.x
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
        case let (.xy(spec), .xy):
            return .xy(x: spec.x.math.setting(value.x), y: spec.y.math.setting(value.y))
        case (.toggle, .toggle):
            return .toggle(on: number != 0)
        default:
            return context
        }
    }

    /// `context` with a one-number `thumb` at `number`.
    public func holding(_ thumb: Thumb, at number: Double, against context: ControlState) -> ControlState {
        holding(thumb, at: ThumbValue(number), against: context)
    }

    /// What a `set` of `thumb` to `value` commits on top of `context`.
    ///
    /// snap: the nearest of `values` (ties to the higher index); range: the
    /// thumb clamped like a drag (non-integers rounded half away from zero);
    /// slider and colour channel: clamped, then snapped (or rounded to
    /// `digits`); gauge: stored as is; toggle: on unless 0.
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

    /// What a `set` of an xy pad to `x` and `y` commits on top of `context`:
    /// each given axis clamped, then snapped or rounded as a slider's `set`; an absent one stays.
    public func settingXY(x: Double?, y: Double?, against context: ControlState) -> ControlState {
        guard case let (.xy(spec), .xy(x0, y0)) = (kind, context) else { return context }
        return .xy(x: x.map(spec.x.math.setting) ?? x0, y: y.map(spec.y.math.setting) ?? y0)
    }

    /// What a `step` of `thumb` by `n` commits on top of `context`: snap index ± n,
    /// range thumb ± n (then its clamp), slider ± n steps (no step: n hundredths
    /// of the span; log: n hundredths of the track), colour channel ± n steps
    /// (no step: ± n/255), toggle flipped unless n is 0; an xy pad's x by `n`
    /// and y by `byY` as sliders step. Never wraps. (A button's press is the room's business.)
    public func stepping(_ thumb: Thumb, by n: Int, byY ny: Int = 0, from context: ControlState) -> ControlState {
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
        case let (.toggle, .toggle(on)):
            return .toggle(on: n == 0 ? on : !on)
        case let (.xy(spec), .xy(x, y)):
            return .xy(x: spec.x.math.stepping(x, by: n), y: spec.y.math.stepping(y, by: ny))
        default:
            return context
        }
    }

    /// `base` with `thumb` replaced by `value` as is, with no clamping: how a
    /// live preview is laid over the committed state to form the displayed state.
    public func overlaying(_ thumb: Thumb, value: ThumbValue, onto base: ControlState) -> ControlState {
        let number = value.x
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
        case (.xy, .xy):
            return .xy(x: value.x, y: value.y)
        default:
            return base
        }
    }

    /// `base` with a one-number `thumb` replaced by `number` as is.
    public func overlaying(_ thumb: Thumb, number: Double, onto base: ControlState) -> ControlState {
        overlaying(thumb, value: ThumbValue(number), onto: base)
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
        case (.toggle, .toggle):
            return true
        case let (.xy(spec), .xy(x, y)):
            return spec.isValid(x, y)
        case let (.button, .button(presses)):
            return presses >= 0 && presses <= ButtonMath.maxPresses
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

/// A momentary button's count.
public enum ButtonMath {
    /// The most presses a button counts: 2^53, the largest whole number a
    /// JavaScript client reads exactly. A press at the cap leaves it there.
    public static let maxPresses = 9_007_199_254_740_992

    /// The state after one press.
    public static func pressed(_ presses: Int) -> ControlState {
        .button(presses: Swift.min(presses + 1, maxPresses))
    }
}
