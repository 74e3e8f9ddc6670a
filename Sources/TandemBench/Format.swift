/// Number formatting for people, without Foundation.
public enum Format {
    /// `x` with exactly `decimals` (0...9) digits after the point, rounded half
    /// away from zero; `-` for NaN or infinity.
    public static func fixed(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return "-" }
        let decimals = Swift.min(Swift.max(decimals, 0), 9)
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (x.magnitude * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return x.description }
        let whole = UInt64(scaled)
        let unit = UInt64(scale)
        var text = x < 0 && whole > 0 ? "-" : ""
        text += String(whole / unit)
        if decimals > 0 {
            var fraction = String(whole % unit)
            while fraction.count < decimals { fraction = "0" + fraction }
            text += "." + fraction
        }
        return text
    }

    /// A nanosecond duration in the unit that reads best, with three significant
    /// digits: `850 ns`, `12.3 µs`, `1.25 ms`, `2.00 s`.
    public static func duration(_ ns: Double) -> String {
        guard ns.isFinite else { return "-" }
        let units: [(Double, String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs")]
        for (size, name) in units where ns.magnitude >= size {
            return significant(ns / size) + " " + name
        }
        return fixed(ns, 0) + " ns"
    }

    /// A nanosecond duration given as an integer.
    public static func duration(_ ns: UInt64) -> String { duration(Double(ns)) }

    /// A count with a k/M suffix for big numbers: `950`, `23.9k`, `1.20M`.
    public static func count(_ x: Double) -> String {
        guard x.isFinite else { return "-" }
        if x.magnitude >= 1e6 { return significant(x / 1e6) + "M" }
        if x.magnitude >= 1e4 { return significant(x / 1e3) + "k" }
        return fixed(x, x.magnitude < 10 && x != x.rounded() ? 1 : 0)
    }

    /// A byte rate or size: `512 B`, `1.50 kB`, `2.30 MB` (powers of 1000).
    public static func bytes(_ x: Double) -> String {
        guard x.isFinite else { return "-" }
        if x.magnitude >= 1e9 { return significant(x / 1e9) + " GB" }
        if x.magnitude >= 1e6 { return significant(x / 1e6) + " MB" }
        if x.magnitude >= 1e3 { return significant(x / 1e3) + " kB" }
        return fixed(x, 0) + " B"
    }

    /// A share as a percentage: `99.6%`.
    public static func percent(_ share: Double) -> String {
        fixed(share * 100, 1) + "%"
    }

    /// Three significant digits for a value in [1, 1000).
    static func significant(_ x: Double) -> String {
        let m = x.magnitude
        if m >= 99.95 { return fixed(x, 0) }
        if m >= 9.995 { return fixed(x, 1) }
        return fixed(x, 2)
    }
}
