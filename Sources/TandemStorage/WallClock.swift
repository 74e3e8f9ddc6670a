#if canImport(Glibc)
import Glibc
#endif

/// The wall clock, for `StoredCommit.time`. The room engine never reads it.
public enum WallClock {
    /// Now, as Unix time in milliseconds.
    public static func milliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
