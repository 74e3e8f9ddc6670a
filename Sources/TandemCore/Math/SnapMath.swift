/// How a snap slider places its values along the track.
public enum SnapLayout: String, Sendable, Hashable, CaseIterable {
    /// Evenly spaced: value `i` of `n` sits at `i/(n-1)`.
    case ordinal
    /// Each value sits at `(v - first)/(last - first)`.
    case proportional
}

/// The math of a discrete snap slider over a non-empty, ascending list of values.
public enum SnapMath {
    /// The index selected by a pointer at track fraction `f` (clamped to [0, 1]).
    ///
    /// Ordinal: `round(f * (count-1))`, half away from zero. Proportional: the
    /// value whose position is nearest; a tie goes to the higher index. One value:
    /// always index 0.
    public static func index(at f: Double, values: [Double], layout: SnapLayout) -> Int {
        let count = values.count
        guard count > 1 else { return 0 }
        let f = unitClamp(f)
        switch layout {
        case .ordinal:
            return clamp(saturatingInt(roundHalfAway(f * Double(count - 1))), 0, count - 1)
        case .proportional:
            var best = 0
            var bestDistance = Double.infinity
            for i in 0..<count {
                let d = abs(position(of: i, values: values, layout: .proportional) - f)
                if d <= bestDistance { // `<=`: ties go to the higher index
                    best = i
                    bestDistance = d
                }
            }
            return best
        }
    }

    /// The track fraction of value `index` (one value: the middle, 0.5).
    public static func position(of index: Int, values: [Double], layout: SnapLayout) -> Double {
        let count = values.count
        guard count > 1 else { return 0.5 }
        let i = clamp(index, 0, count - 1)
        switch layout {
        case .ordinal:
            return Double(i) / Double(count - 1)
        case .proportional:
            let first = values[0], last = values[count - 1]
            return (values[i] - first) / (last - first)
        }
    }

    /// The ordinal track fraction of `index` among `count` evenly spaced values.
    public static func position(of index: Int, count: Int) -> Double {
        guard count > 1 else { return 0.5 }
        return Double(clamp(index, 0, count - 1)) / Double(count - 1)
    }

    /// The index of `values` nearest to `value`; a tie goes to the higher index.
    /// This is what a `set` of a snap slider selects.
    public static func nearestIndex(to value: Double, values: [Double]) -> Int {
        var best = 0
        var bestDistance = Double.infinity
        for (i, v) in values.enumerated() {
            let d = abs(v - value)
            if d <= bestDistance {
                best = i
                bestDistance = d
            }
        }
        return best
    }

    /// `index` moved by `n` places, stopping at either end.
    public static func stepped(_ index: Int, by n: Int, count: Int) -> Int {
        let target = index.addingReportingOverflow(n)
        if target.overflow { return n >= 0 ? count - 1 : 0 }
        return clamp(target.partialValue, 0, count - 1)
    }

    /// The ordinal index under pointer `x` on a track of `geometry` with `count` values.
    public static func index(atX x: Double, geometry: TrackGeometry, count: Int) -> Int {
        guard count > 1 else { return 0 }
        return clamp(saturatingInt(roundHalfAway(unitClamp(geometry.fraction(atX: x)) * Double(count - 1))), 0, count - 1)
    }

    /// The pointer `x` of the centre of ordinal value `index` on a track of `geometry`.
    public static func x(ofIndex index: Int, geometry: TrackGeometry, count: Int) -> Double {
        geometry.x(atFraction: position(of: index, count: count))
    }
}
