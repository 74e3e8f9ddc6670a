#if canImport(Glibc)
import Glibc
#endif
import TandemCore

/// The server's one clock: monotonic nanoseconds, read once per event.
enum MonotonicClock {
    /// Now, on the monotonic clock.
    static func now() -> Moment {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Moment(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
