/// The fields the bench needs from one reading of `/proc/PID/stat`.
///
/// The line is `pid (comm) state ppid ...`. `comm` is the process's name, up
/// to 16 bytes the process chose itself, so it may hold spaces and
/// parentheses (`(my (odd) name)`); the parser therefore takes `comm` as
/// everything between the first `(` and the *last* `)`, and counts the other
/// fields from after that. Field numbers follow proc(5), from 1.
public struct ProcStat: Sendable, Hashable {
    /// Field 1.
    public var pid: Int
    /// Field 2, without its parentheses.
    public var comm: String
    /// Field 3: `R`, `S`, `D`, `Z`, ...
    public var state: Character
    /// Field 14: user-mode CPU time in clock ticks.
    public var utime: UInt64
    /// Field 15: kernel-mode CPU time in clock ticks.
    public var stime: UInt64
    /// Field 20.
    public var threads: Int
    /// Field 24: resident set size in pages.
    public var rssPages: Int64

    public init(pid: Int, comm: String, state: Character, utime: UInt64, stime: UInt64, threads: Int = 1, rssPages: Int64 = 0) {
        self.pid = pid
        self.comm = comm
        self.state = state
        self.utime = utime
        self.stime = stime
        self.threads = threads
        self.rssPages = rssPages
    }

    /// The reading in `text` (the whole file), or `nil` when it is not one.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close else { return nil }
        let head = bytes[..<open].filter { $0 != UInt8(ascii: " ") }
        guard let pid = Int(String(decoding: head, as: UTF8.self)) else { return nil }
        let rest = bytes[(close + 1)...].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        // rest[0] is field 3, so field k is rest[k - 3].
        guard rest.count >= 22, rest[0].count == 1 else { return nil }
        func field(_ k: Int) -> String { String(decoding: rest[k - 3], as: UTF8.self) }
        guard let utime = UInt64(field(14)), let stime = UInt64(field(15)),
              let threads = Int(field(20)), let rss = Int64(field(24)) else { return nil }
        self.pid = pid
        self.comm = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        self.state = Character(Unicode.Scalar(rest[0][rest[0].startIndex]))
        self.utime = utime
        self.stime = stime
        self.threads = threads
        self.rssPages = rss
    }

    /// User plus kernel CPU time, in clock ticks.
    public var cpuTicks: UInt64 { utime + stime }
}

/// CPU used by one process between two `ProcStat` readings.
public struct CPUUsage: Sendable, Hashable {
    /// CPU seconds spent between the readings.
    public var seconds: Double
    /// Wall-clock seconds between the readings.
    public var wallSeconds: Double

    /// The CPU from `before` to `after`, whose ticks are `ticksPerSecond` a
    /// second (`sysconf(_SC_CLK_TCK)`, 100 on Linux), over `wallSeconds`.
    /// `nil` when the readings are of different processes, go backwards, or
    /// the rates are not positive.
    public init?(from before: ProcStat, to after: ProcStat, ticksPerSecond: Int, wallSeconds: Double) {
        guard before.pid == after.pid, ticksPerSecond > 0, wallSeconds > 0, wallSeconds.isFinite,
              after.cpuTicks >= before.cpuTicks else { return nil }
        seconds = Double(after.cpuTicks - before.cpuTicks) / Double(ticksPerSecond)
        self.wallSeconds = wallSeconds
    }

    public init(seconds: Double, wallSeconds: Double) {
        self.seconds = seconds
        self.wallSeconds = wallSeconds
    }

    /// The share of one core, 0.5 for half a core.
    public var coreShare: Double { seconds / wallSeconds }

    /// CPU seconds per delivered update; `nil` when nothing was delivered.
    public func secondsPerUpdate(delivered: UInt64) -> Double? {
        delivered > 0 ? seconds / Double(delivered) : nil
    }

    /// CPU per delivered update from two readings, in seconds: the ticks between
    /// them over `ticksPerSecond`, divided by `delivered`; `nil` when that is
    /// not a number (no deliveries, bad readings).
    public static func perUpdate(from before: ProcStat, to after: ProcStat,
                                 ticksPerSecond: Int, delivered: UInt64) -> Double? {
        CPUUsage(from: before, to: after, ticksPerSecond: ticksPerSecond, wallSeconds: 1)?
            .secondsPerUpdate(delivered: delivered)
    }
}
