/// The pixel geometry of a horizontal track, for native clients.
///
/// The server never sees pixels: a client turns a pointer into a fraction of the
/// usable track, 0 at the centre of the thumb at the low end and 1 at the centre
/// of the thumb at the high end. `inset` is the distance from the track's edge to
/// the thumb's centre at either end (usually half the thumb's width).
public struct TrackGeometry: Sendable, Hashable {
    /// The whole track width in points or pixels.
    public var width: Double
    /// The distance from each edge of the track to the thumb's centre at that end.
    public var inset: Double

    public init(width: Double, inset: Double) {
        self.width = width
        self.inset = inset
    }

    /// The usable length between the two extreme thumb centres; never negative.
    public var usableWidth: Double { Swift.max(0, width - 2 * inset) }

    /// The fraction of the usable track at pointer `x`, unclamped:
    /// `(x - inset) / (width - 2*inset)`.
    ///
    /// A track too narrow for its thumb (no usable width) has a single
    /// position, the low end: every `x` maps to 0.
    public func fraction(atX x: Double) -> Double {
        let usable = usableWidth
        guard usable > 0 else { return 0 }
        return (x - inset) / usable
    }

    /// The pointer `x` of a fraction of the usable track.
    public func x(atFraction f: Double) -> Double {
        inset + f * usableWidth
    }
}
