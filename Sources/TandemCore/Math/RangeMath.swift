/// The two thumbs of a range slider.
public enum RangeThumb: String, Sendable, Hashable, CaseIterable {
    case lower, upper
}

/// The math of a two-thumb integer range slider.
///
/// The track draws the whole `scale`; thumbs may only reach `operable`, and
/// the thumbs stay at least `minGap` apart. All of it is integers.
public struct RangeMath: Sendable, Hashable {
    /// The drawn scale `[lo, hi]`, `lo < hi`.
    public var scale: ClosedRange<Int>
    /// The reachable part of the scale.
    public var operable: ClosedRange<Int>
    /// The least distance between the two thumbs.
    public var minGap: Int

    public init(scale: ClosedRange<Int>, operable: ClosedRange<Int>, minGap: Int) {
        self.scale = scale
        self.operable = operable
        self.minGap = minGap
    }

    /// The raw scale value under track fraction `f`: `lo + round(clamp(f) * (hi - lo))`.
    public func raw(at f: Double) -> Int {
        let span = Double(scale.upperBound - scale.lowerBound)
        return scale.lowerBound + saturatingInt(roundHalfAway(unitClamp(f) * span))
    }

    /// The track fraction of a thumb at `value`: `(value - lo)/(hi - lo)`.
    public func position(of value: Int) -> Double {
        Double(value - scale.lowerBound) / Double(scale.upperBound - scale.lowerBound)
    }

    /// `thumb` put at scale value `raw`, then clamped against the other thumb of
    /// `other` and the operable bounds.
    ///
    /// lower: `max(operableLo, min(raw, upper - minGap))`;
    /// upper: `min(operableHi, max(raw, lower + minGap))`.
    public func placing(_ thumb: RangeThumb, at raw: Int, against other: RangeState) -> RangeState {
        var state = other
        switch thumb {
        case .lower:
            state.lower = Swift.max(operable.lowerBound, Swift.min(raw, other.upper - minGap))
        case .upper:
            state.upper = Swift.min(operable.upperBound, Swift.max(raw, other.lower + minGap))
        }
        return state
    }

    /// `thumb` dragged to track fraction `f` against `other`.
    public func dragging(_ thumb: RangeThumb, to f: Double, against other: RangeState) -> RangeState {
        placing(thumb, at: raw(at: f), against: other)
    }

    /// `thumb` dragged by `dx` from its position in `start` (and clamped against `start`).
    public func dragging(_ thumb: RangeThumb, by dx: Double, from start: RangeState) -> RangeState {
        dragging(thumb, to: position(of: start[thumb]) + dx, against: start)
    }

    /// `thumb` moved by `n` scale units, stopping at the ends.
    public func stepping(_ thumb: RangeThumb, by n: Int, from state: RangeState) -> RangeState {
        let moved = state[thumb].addingReportingOverflow(n)
        let raw = moved.overflow ? (n > 0 ? Int.max : Int.min) : moved.partialValue
        return placing(thumb, at: raw, against: state)
    }

    /// Whether `state` keeps every invariant: both thumbs operable and at least `minGap` apart.
    public func isValid(_ state: RangeState) -> Bool {
        operable.contains(state.lower) && operable.contains(state.upper) && state.lower + minGap <= state.upper
    }
}

/// The state of a range slider: two integer thumbs.
public struct RangeState: Sendable, Hashable {
    public var lower: Int
    public var upper: Int

    public init(lower: Int, upper: Int) {
        self.lower = lower
        self.upper = upper
    }

    /// The value of one thumb.
    public subscript(thumb: RangeThumb) -> Int {
        get { thumb == .lower ? lower : upper }
        set { if thumb == .lower { lower = newValue } else { upper = newValue } }
    }
}
