/// A point in time on a monotonic clock the caller reads; the core never reads a clock.
///
/// Tests pass whatever moments they like, which makes lapses and rate limits deterministic.
public struct Moment: Sendable, Hashable, Comparable {
    /// Nanoseconds since an arbitrary origin.
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The moment `seconds` after the origin.
    public static func seconds(_ seconds: Double) -> Moment {
        Moment(nanoseconds: Int64(seconds * 1e9))
    }

    /// The origin.
    public static let zero = Moment(nanoseconds: 0)

    /// This moment moved by `seconds`.
    public func adding(seconds: Double) -> Moment {
        Moment(nanoseconds: nanoseconds &+ Int64(seconds * 1e9))
    }

    /// Seconds from `earlier` to this moment.
    public func seconds(since earlier: Moment) -> Double {
        Double(nanoseconds &- earlier.nanoseconds) / 1e9
    }

    public static func < (a: Moment, b: Moment) -> Bool { a.nanoseconds < b.nanoseconds }
}
