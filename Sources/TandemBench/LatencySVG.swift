import Glibc

/// A picture of a run's latency as SVG text: the percentiles second by second
/// (p50, p90, p99, p99.9, max) on a log scale, and below it the histogram of
/// all latencies on a log axis with the percentiles marked.
///
/// Every coordinate written is finite: empty runs, a single point, and zero
/// latencies all draw (zeros sit on the axis floor).
public enum LatencySVG {
    static let width = 1040.0
    static let height = 760.0
    static let left = 90.0
    static let right = 820.0
    /// Series colours, one per `LatencyPoint.names` entry.
    static let colours = ["#1E88E5", "#43A047", "#FB8C00", "#E53935", "#6D4C41"]

    public static func render(_ report: BenchReport) -> String {
        var svg = Canvas()
        svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"sans-serif\" font-size=\"12\">")
        svg.raw("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        let title = "tandem-bench \(report.scenario): \(report.clients) clients, \(report.draggers) draggers at \(Format.fixed(report.hz, 0)) Hz"
        svg.text(title, x: left, y: 28, size: 16, weight: "bold")
        timeline(report.timeline, into: &svg, top: 70, bottom: 330)
        histogram(report.latency, into: &svg, top: 440, bottom: 700)
        svg.raw("</svg>")
        return svg.text
    }

    // MARK: - Percentiles over time

    private static func timeline(_ points: [LatencyPoint], into svg: inout Canvas, top: Double, bottom: Double) {
        svg.text("Latency percentiles over time (log scale)", x: left, y: top - 16, size: 14, weight: "bold")
        let filled = points.filter { $0.count > 0 }
        let values = filled.flatMap(\.values)
        let axis = LogAxis(low: values.min() ?? 1_000, high: values.max() ?? 1_000_000, from: bottom, to: top)
        let tMax = Swift.max(points.map(\.seconds).max() ?? 1, 1)
        let x = { (t: Double) in left + (right - left) * Swift.min(Swift.max(t / tMax, 0), 1) }
        frame(axis, into: &svg, top: top, bottom: bottom)
        // x axis: seconds
        for t in ticks(upTo: tMax) {
            svg.line(x1: x(t), y1: bottom, x2: x(t), y2: bottom + 5, stroke: "#333")
            svg.text(Format.fixed(t, t == t.rounded() ? 0 : 1), x: x(t), y: bottom + 18, anchor: "middle")
        }
        svg.text("seconds", x: (left + right) / 2, y: bottom + 36, anchor: "middle")
        svg.text("latency", x: 24, y: (top + bottom) / 2, anchor: "middle", rotate: true)
        guard !filled.isEmpty else {
            svg.text("no samples", x: (left + right) / 2, y: (top + bottom) / 2, anchor: "middle", size: 16)
            return
        }
        for (k, name) in LatencyPoint.names.enumerated() {
            let coordinates = filled.map { "\(n(x($0.seconds))),\(n(axis.position(Double($0.values[k]))))" }
            if filled.count == 1 {
                let p = filled[0]
                svg.raw("<circle cx=\"\(n(x(p.seconds)))\" cy=\"\(n(axis.position(Double(p.values[k]))))\" r=\"3\" fill=\"\(colours[k])\"/>")
            } else {
                svg.raw("<polyline fill=\"none\" stroke=\"\(colours[k])\" stroke-width=\"\(k == 4 ? 1 : 2)\" points=\"\(coordinates.joined(separator: " "))\"/>")
            }
            // legend
            let ly = top + 10 + Double(k) * 20
            svg.line(x1: right + 20, y1: ly - 4, x2: right + 44, y2: ly - 4, stroke: colours[k], width: 3)
            let overall = filled.map { $0.values[k] }.max() ?? 0
            svg.text("\(name) (peak \(Format.duration(overall)))", x: right + 50, y: ly)
        }
    }

    // MARK: - Histogram

    private static func histogram(_ histogram: LatencyHistogram, into svg: inout Canvas, top: Double, bottom: Double) {
        svg.text("Latency histogram, \(Format.count(Double(histogram.count))) samples (log latency axis)", x: left, y: top - 16, size: 14, weight: "bold")
        let buckets = histogram.nonEmptyBuckets
        let axis = LogAxis(low: histogram.isEmpty ? 1_000 : histogram.min, high: histogram.isEmpty ? 1_000_000 : histogram.max,
                           from: left, to: right)
        // Bins: ten per decade across the axis.
        let binsPerDecade = 10.0
        let binCount = Swift.max(1, Int((axis.hiExp - axis.loExp) * binsPerDecade))
        var bins = Array(repeating: 0.0, count: binCount)
        for bucket in buckets {
            let middle = Double(bucket.lowest) + Double(bucket.highest - bucket.lowest) / 2
            let f = axis.fraction(middle)
            bins[Swift.min(binCount - 1, Swift.max(0, Int(f * Double(binCount))))] += Double(bucket.count)
        }
        let total = Swift.max(Double(histogram.count), 1)
        let peak = Swift.max((bins.max() ?? 0) / total, 0.01)
        let yTop = niceCeiling(peak * 100)
        let y = { (share: Double) in bottom - (bottom - top) * Swift.min(share * 100 / yTop, 1) }
        // y axis: share of samples
        svg.line(x1: left, y1: top, x2: left, y2: bottom, stroke: "#333")
        svg.line(x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#333")
        for k in 0...4 {
            let v = yTop * Double(k) / 4
            let yy = bottom - (bottom - top) * Double(k) / 4
            svg.line(x1: left - 5, y1: yy, x2: right, y2: yy, stroke: k == 0 ? "#333" : "#e0e0e0")
            svg.text(Format.fixed(v, v < 10 ? 1 : 0) + "%", x: left - 8, y: yy + 4, anchor: "end")
        }
        svg.text("share of samples", x: 24, y: (top + bottom) / 2, anchor: "middle", rotate: true)
        for (value, label) in axis.decades() {
            let xx = axis.position(value)
            svg.line(x1: xx, y1: bottom, x2: xx, y2: bottom + 5, stroke: "#333")
            svg.text(label, x: xx, y: bottom + 18, anchor: "middle")
        }
        svg.text("latency", x: (left + right) / 2, y: bottom + 36, anchor: "middle")
        guard !histogram.isEmpty else {
            svg.text("no samples", x: (left + right) / 2, y: (top + bottom) / 2, anchor: "middle", size: 16)
            return
        }
        let binWidth = (right - left) / Double(binCount)
        for (k, count) in bins.enumerated() where count > 0 {
            let yy = y(count / total)
            svg.raw("<rect x=\"\(n(left + Double(k) * binWidth + 0.5))\" y=\"\(n(yy))\" width=\"\(n(Swift.max(binWidth - 1, 0.5)))\" height=\"\(n(bottom - yy))\" fill=\"#90CAF9\" stroke=\"#1E88E5\" stroke-width=\"0.5\"/>")
        }
        let marks: [(String, Double)] = [("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9)]
        for (k, (name, p)) in marks.enumerated() {
            let value = histogram.percentile(p)
            let xx = axis.position(Double(value))
            svg.raw("<line x1=\"\(n(xx))\" y1=\"\(n(top))\" x2=\"\(n(xx))\" y2=\"\(n(bottom))\" stroke=\"\(colours[k])\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>")
            svg.text("\(name) \(Format.duration(value))", x: right + 20, y: top + 10 + Double(k) * 20, fill: colours[k])
        }
        svg.text("max \(Format.duration(histogram.max))", x: right + 20, y: top + 90, fill: colours[4])
        svg.text("mean \(Format.duration(histogram.mean))", x: right + 20, y: top + 110)
    }

    /// Horizontal grid lines and labels of a vertical log axis.
    private static func frame(_ axis: LogAxis, into svg: inout Canvas, top: Double, bottom: Double) {
        svg.line(x1: left, y1: top, x2: left, y2: bottom, stroke: "#333")
        svg.line(x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#333")
        for (value, label) in axis.decades() {
            let yy = axis.position(value)
            svg.line(x1: left - 5, y1: yy, x2: right, y2: yy, stroke: "#e0e0e0")
            svg.text(label, x: left - 8, y: yy + 4, anchor: "end")
        }
        for value in axis.minorTicks() {
            let yy = axis.position(value)
            svg.line(x1: left, y1: yy, x2: right, y2: yy, stroke: "#f3f3f3")
        }
    }

    /// About ten round tick values from 0 to `maximum`.
    static func ticks(upTo maximum: Double) -> [Double] {
        let raw = maximum / 10
        var step = 1.0
        while step * 10 <= raw { step *= 10 }
        while step > raw * 2, step > 0.1 { step /= 10 }
        if step * 5 <= raw { step *= 5 } else if step * 2 <= raw { step *= 2 }
        var out: [Double] = []
        var t = 0.0
        while t <= maximum + step * 1e-9, out.count < 100 {
            out.append(t)
            t += step
        }
        return out
    }

    /// 1, 2, 5, 10, 20, 50 ... at or above `x` (x > 0).
    static func niceCeiling(_ x: Double) -> Double {
        var base = 1.0
        while base * 10 < x { base *= 10 }
        while base > x, base > 1e-6 { base /= 10 }
        for m in [1.0, 2.0, 5.0, 10.0] where base * m >= x { return base * m }
        return base * 10
    }

    /// A number for an attribute: finite, two decimals at most.
    static func n(_ x: Double) -> String {
        Format.fixed(x.isFinite ? x : 0, 2)
    }
}

/// A log10 axis over whole decades of nanoseconds, mapped onto `from...to`.
struct LogAxis {
    let loExp: Double
    let hiExp: Double
    let from: Double
    let to: Double

    init(low: UInt64, high: UInt64, from: Double, to: Double) {
        let lo = floor(log10(Double(Swift.max(low, 1))))
        var hi = ceil(log10(Double(Swift.max(high, 1))))
        if hi <= lo { hi = lo + 1 }
        loExp = lo
        hiExp = hi
        self.from = from
        self.to = to
    }

    /// Where `value` falls, 0 at the low end and 1 at the high end, clamped.
    func fraction(_ value: Double) -> Double {
        let e = log10(Swift.max(value, 1))
        return Swift.min(Swift.max((e - loExp) / (hiExp - loExp), 0), 1)
    }

    func position(_ value: Double) -> Double {
        from + (to - from) * fraction(value)
    }

    /// Each decade's value and label: `1 µs`, `10 µs`, `100 µs`, `1 ms` ...
    func decades() -> [(Double, String)] {
        stride(from: loExp, through: hiExp, by: 1).map { e in
            let value = pow(10, e)
            // Whole decades read better without the zeros: `1 ms`, not `1.00 ms`.
            let label = Format.duration(value).replacing(".00 ", with: " ").replacing(".0 ", with: " ")
            return (value, label)
        }
    }

    /// 2× and 5× each decade, for light grid lines.
    func minorTicks() -> [Double] {
        stride(from: loExp, to: hiExp, by: 1).flatMap { e in [2 * pow(10, e), 5 * pow(10, e)] }
    }
}

/// SVG text being built, with escaping for text content.
struct Canvas {
    var text = ""

    mutating func raw(_ s: String) {
        text += s
        text += "\n"
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1) {
        raw("<line x1=\"\(LatencySVG.n(x1))\" y1=\"\(LatencySVG.n(y1))\" x2=\"\(LatencySVG.n(x2))\" y2=\"\(LatencySVG.n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(LatencySVG.n(width))\"/>")
    }

    mutating func text(_ content: String, x: Double, y: Double, anchor: String = "start", size: Double = 12,
                       weight: String = "normal", fill: String = "#222", rotate: Bool = false) {
        let transform = rotate ? " transform=\"rotate(-90 \(LatencySVG.n(x)) \(LatencySVG.n(y)))\"" : ""
        raw("<text x=\"\(LatencySVG.n(x))\" y=\"\(LatencySVG.n(y))\" text-anchor=\"\(anchor)\" font-size=\"\(LatencySVG.n(size))\" font-weight=\"\(weight)\" fill=\"\(fill)\"\(transform)>\(Canvas.escape(content))</text>")
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
