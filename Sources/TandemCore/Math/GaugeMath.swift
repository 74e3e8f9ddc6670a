/// The math of a read-only gauge over `[min, max]`.
public struct GaugeMath: Sendable, Hashable {
    /// The low end of the gauge.
    public var min: Double
    /// The high end of the gauge.
    public var max: Double

    public init(min: Double, max: Double) {
        self.min = min
        self.max = max
    }

    /// How far along the gauge `value` is: `clamp((v-min)/(max-min), 0, 1)`.
    /// A gauge stores any finite value; only the fraction is clamped.
    public func fraction(of value: Double) -> Double {
        unitClamp((value - min) / (max - min))
    }
}
