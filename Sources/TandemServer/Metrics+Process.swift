import TandemCore
import TandemStorage
#if canImport(Glibc)
import Glibc
#endif

/// The process's own resources, under the names Prometheus' client libraries
/// give them (`process_*`), so that the usual dashboards and alerts work:
/// descriptors open against their limit (what `--max-connections` is derived
/// from), memory, CPU time and the start time (docs/operations.md, "Alerts").
///
/// Read from /proc and getrlimit(2) at each scrape. Linux 6.2 and later give
/// the count of open descriptors as the size of /proc/self/fd, at no cost;
/// older kernels take a read of that directory, about 2 µs a descriptor on the
/// event loop (40 ms at 19,000), so there the count is read at most once per
/// `directoryCountAge` seconds and reused between.
struct ProcessMetrics {
    /// When the server started (its `Metrics` were made), as Unix time in seconds.
    let startTime: Double
    /// The last count read from the directory, and when (old kernels only).
    private let cache = DescriptorCount()

    /// Seconds a count read from the directory is reused.
    static let directoryCountAge: Double = 10

    private final class DescriptorCount {
        var value: Int?
        var at = MonotonicClock.now()
    }

    init() {
        startTime = Double(WallClock.milliseconds()) / 1000
    }

    func exposition() -> String {
        var out = PrometheusText()
        if let open = openDescriptors() {
            out.metric("process_open_fds", "gauge", "File descriptors open (sockets, the SQLite file, the event loop's).", [("", open)])
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            // RLIM_INFINITY does not fit an Int: report the largest one that does.
            out.metric("process_max_fds", "gauge", "The descriptor limit (RLIMIT_NOFILE, soft) in force.",
                       [("", limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur))])
        }
        let page = sysconf(Int32(_SC_PAGESIZE))
        if let pages = Self.statmPages(), page > 0 {
            out.metric("process_virtual_memory_bytes", "gauge", "Virtual memory size.", [("", pages.size * page)])
            out.metric("process_resident_memory_bytes", "gauge", "Resident set size.", [("", pages.resident * page)])
        }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            out.metric("process_cpu_seconds_total", "counter", "User and system CPU time spent.", [("", seconds)])
        }
        out.metric("process_start_time_seconds", "gauge", "When the server started, as Unix time.", [("", startTime)])
        return out.text
    }

    /// The descriptors open: the size of /proc/self/fd (Linux 6.2+), else a
    /// count of its entries no older than `directoryCountAge`; nil without /proc.
    func openDescriptors() -> Int? {
        if let size = Self.directorySize() { return size }
        let now = MonotonicClock.now()
        if let value = cache.value, now.seconds(since: cache.at) < Self.directoryCountAge { return value }
        cache.value = Self.countDirectory()
        cache.at = now
        return cache.value
    }

    /// The size of /proc/self/fd, which Linux 6.2 and later make the count of open descriptors; nil before.
    static func directorySize() -> Int? {
        var info = stat()
        guard stat("/proc/self/fd", &info) == 0, info.st_size > 0 else { return nil }
        return Int(info.st_size)
    }

    /// The entries of /proc/self/fd less the one reading them holds; nil without /proc.
    static func countDirectory() -> Int? {
        guard let dir = opendir("/proc/self/fd") else { return nil }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let dot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !dot { count += 1 }
        }
        return max(0, count - 1)
    }

    /// The first two fields of /proc/self/statm: total and resident size, in pages.
    static func statmPages() -> (size: Int, resident: Int)? {
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let fields = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: " ").prefix(2).compactMap { Int($0) }
        guard fields.count == 2 else { return nil }
        return (fields[0], fields[1])
    }
}
