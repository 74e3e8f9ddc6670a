import Foundation
import Testing
import TandemBench

@Suite("The latency picture")
struct LatencySVGTests {
    func checkWellFormed(_ svg: String) {
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        for bad in ["NaN", "nan", "inf", "Infinity"] { #expect(!svg.contains(bad), "\(bad) in the SVG") }
        // Every element that opens is closed: count tags roughly.
        #expect(svg.components(separatedBy: "<text").count == svg.components(separatedBy: "</text>").count)
        // Text content is escaped.
        #expect(!svg.contains("<1000"))
        // Every attribute number parses.
        let pattern = try! NSRegularExpression(pattern: #"(?<![\w-])(?:x|y|x1|y1|x2|y2|width|height|cx|cy)="([^"]*)""#)
        let range = NSRange(svg.startIndex..., in: svg)
        for match in pattern.matches(in: svg, range: range) {
            let value = String(svg[Range(match.range(at: 1), in: svg)!])
            if value.hasSuffix("%") { continue }
            #expect(Double(value)?.isFinite == true, "attribute \(value)")
        }
    }

    @Test("a run draws percentiles over time and the histogram, labelled, on log axes")
    func fullReport() {
        let svg = LatencySVG.render(BenchReportTests.sampleReport())
        checkWellFormed(svg)
        for label in ["p50", "p90", "p99", "p99.9", "max", "Latency percentiles over time (log scale)",
                      "Latency histogram", "seconds", "share of samples", ">1 ms<", ">10 ms<", "(peak ", "S2 &lt;1000 &amp; 4&gt;"] {
            #expect(svg.contains(label), "\(label)")
        }
        #expect(svg.contains("<polyline"))
        #expect(svg.contains("<rect x="))
    }

    @Test("an empty run, a single second and zero latencies still draw finite pictures")
    func edgeCases() {
        let empty = BenchReport(scenario: "empty", url: "", clients: 0, draggers: 0, hz: 60, seconds: 0,
                                offered: 0, delivered: 0, frames: 0, bytes: 0, latency: LatencyHistogram())
        let svg = LatencySVG.render(empty)
        checkWellFormed(svg)
        #expect(svg.contains("no samples"))

        var zeros = LatencyHistogram()
        zeros.record(0)
        zeros.record(0)
        let one = BenchReport(scenario: "one", url: "", clients: 1, draggers: 1, hz: 60, seconds: 1,
                              offered: 2, delivered: 2, frames: 2, bytes: 100, latency: zeros,
                              timeline: [LatencyPoint(seconds: 1, histogram: zeros)])
        let single = LatencySVG.render(one)
        checkWellFormed(single)
        #expect(single.contains("<circle"))

        var wide = LatencyHistogram()
        wide.record(1)
        wide.record(3_600_000_000_000)
        wide.record(9_000_000_000_000) // beyond the trackable hour
        let far = BenchReport(scenario: "wide", url: "", clients: 1, draggers: 1, hz: 0.5, seconds: 1_000,
                              offered: 3, delivered: 3, frames: 3, bytes: 3, latency: wide,
                              timeline: [LatencyPoint(seconds: 0, histogram: wide), LatencyPoint(seconds: 1_000, histogram: wide)])
        checkWellFormed(LatencySVG.render(far))
    }
}

@Suite("The bench library's purity")
struct BenchPurityTests {
    @Test("no source file of the bench library imports Foundation: only the core, the wire and Glibc")
    func importsOnlyCoreWireGlibc() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TandemBench").resolvingSymlinksInPath()
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 5)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("import ") {
                    #expect(["import TandemCore", "import TandemWire", "import Glibc"].contains(code), "\(file): \(code)")
                }
            }
        }
    }
}
