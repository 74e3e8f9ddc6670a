import Foundation
import Testing
@testable import TandemCore

/// The shared test vectors (`Tests/Fixtures/vectors/core.json`, the project's
/// copy of `shared/vectors/core.json`): every case of every group, checked
/// against the core's math. Doubles match to 1e-9; indices, integers and hex
/// strings match exactly.
@Suite("The shared math vectors")
struct VectorTests {
    /// Every group these tests check; a group added upstream must be added here.
    static let knownGroups: Set<String> = [
        "snapIndexFromPixels", "snapPositionPixels", "snapIndexAt", "rangeDrag",
        "sliderValueAt", "sliderSet", "colorHex", "colorText", "gaugeFraction",
    ]

    @Test("are all in groups these tests know, each with at least one case")
    func everyGroupIsKnownAndNonEmpty() throws {
        let groups = try CoreVectorFile.groupSizes()
        let unknown = Set(groups.keys).subtracting(Self.knownGroups)
        #expect(unknown.isEmpty, "core.json has groups no test checks: \(unknown.sorted())")
        let missing = Self.knownGroups.subtracting(groups.keys)
        #expect(missing.isEmpty, "core.json lacks groups: \(missing.sorted())")
        for (name, size) in groups.sorted(by: { $0.key < $1.key }) {
            #expect(size > 0, "group \(name) has no cases")
        }
    }

    @Test("snapIndexFromPixels: a pointer x on a track picks the ordinal index the vector names")
    func snapIndexFromPixels() throws {
        let cases = try CoreVectorFile.load().snapIndexFromPixels
        for (n, c) in cases.enumerated() {
            let geometry = TrackGeometry(width: c.width, inset: c.inset)
            let index = SnapMath.index(atX: c.x, geometry: geometry, count: c.count)
            #expect(index == c.index, "case \(n): x \(c.x) on width \(c.width) inset \(c.inset), count \(c.count)")
        }
    }

    @Test("snapPositionPixels: an ordinal index sits at the pointer x the vector names")
    func snapPositionPixels() throws {
        let cases = try CoreVectorFile.load().snapPositionPixels
        for (n, c) in cases.enumerated() {
            let geometry = TrackGeometry(width: c.width, inset: c.inset)
            let x = SnapMath.x(ofIndex: c.index, geometry: geometry, count: c.count)
            #expect(isClose(x, c.x), "case \(n): index \(c.index) of \(c.count) gave x \(x), expected \(c.x)")
        }
    }

    @Test("snapIndexAt: a track fraction picks the index the vector names in either layout")
    func snapIndexAt() throws {
        let cases = try CoreVectorFile.load().snapIndexAt
        for (n, c) in cases.enumerated() {
            let layout = try #require(SnapLayout(rawValue: c.layout), "case \(n): unknown layout \(c.layout)")
            let index = SnapMath.index(at: c.f, values: c.values, layout: layout)
            #expect(index == c.index, "case \(n): f \(c.f) over \(c.values) (\(c.layout))")
        }
    }

    @Test("rangeDrag: a thumb dragged by dx from a start state ends where the vector says")
    func rangeDrag() throws {
        let cases = try CoreVectorFile.load().rangeDrag
        for (n, c) in cases.enumerated() {
            let thumb = try #require(RangeThumb(rawValue: c.thumb), "case \(n): unknown thumb \(c.thumb)")
            let scale = try #require(closedRange(c.scale), "case \(n): bad scale \(c.scale)")
            let operable = try #require(closedRange(c.operable), "case \(n): bad operable \(c.operable)")
            let math = RangeMath(scale: scale, operable: operable, minGap: c.minGap)
            let start = RangeState(lower: c.start.lower, upper: c.start.upper)
            let result = math.dragging(thumb, by: c.dx, from: start)
            #expect(result == RangeState(lower: c.expect.lower, upper: c.expect.upper),
                    "case \(n): \(c.thumb) by \(c.dx) from \(c.start.lower)–\(c.start.upper) on scale \(c.scale), operable \(c.operable), minGap \(c.minGap)")
        }
    }

    @Test("sliderValueAt: a track fraction gives the slider value the vector names")
    func sliderValueAt() throws {
        let cases = try CoreVectorFile.load().sliderValueAt
        for (n, c) in cases.enumerated() {
            let value = SliderMath(min: c.min, max: c.max, step: c.step).value(at: c.f)
            #expect(isClose(value, c.value), "case \(n): f \(c.f) over \(c.min)–\(c.max) step \(String(describing: c.step)) gave \(value), expected \(c.value)")
        }
    }

    @Test("sliderSet: a set value is clamped and snapped to what the vector names")
    func sliderSet() throws {
        let cases = try CoreVectorFile.load().sliderSet
        for (n, c) in cases.enumerated() {
            let value = SliderMath(min: c.min, max: c.max, step: c.step).setting(c.value)
            #expect(isClose(value, c.expect), "case \(n): set \(c.value) over \(c.min)–\(c.max) step \(String(describing: c.step)) gave \(value), expected \(c.expect)")
        }
    }

    @Test("colorHex: a colour's channels format as the #RRGGBB the vector names")
    func colorHex() throws {
        let cases = try CoreVectorFile.load().colorHex
        for (n, c) in cases.enumerated() {
            let hex = ColorMath.hex(RGB(red: c.red, green: c.green, blue: c.blue))
            #expect(hex == c.hex, "case \(n): (\(c.red), \(c.green), \(c.blue))")
        }
    }

    @Test("colorText: typed text sets a channel to the vector's level, or leaves it alone")
    func colorText() throws {
        let cases = try CoreVectorFile.load().colorText
        for (n, c) in cases.enumerated() {
            let level = ColorMath.channel(fromText: c.text, current: c.current, step: nil)
            #expect(isClose(level, c.expect), "case \(n): text '\(c.text)' on \(c.current) gave \(level), expected \(c.expect)")
        }
    }

    @Test("gaugeFraction: a gauge value shows the fraction the vector names")
    func gaugeFraction() throws {
        let cases = try CoreVectorFile.load().gaugeFraction
        for (n, c) in cases.enumerated() {
            let fraction = GaugeMath(min: c.min, max: c.max).fraction(of: c.value)
            #expect(isClose(fraction, c.fraction), "case \(n): \(c.value) over \(c.min)–\(c.max) gave \(fraction), expected \(c.fraction)")
        }
    }

    private func isClose(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= 1e-9
    }

    private func closedRange(_ pair: [Int]) -> ClosedRange<Int>? {
        guard pair.count == 2, pair[0] <= pair[1] else { return nil }
        return pair[0]...pair[1]
    }
}

/// The project's copy of `core.json`, read fresh by each test so a missing or
/// malformed file fails every test that needs it rather than skipping them.
enum CoreVectorFile {
    /// `Tests/Fixtures/vectors/core.json`, found from this source file's path.
    static var url: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // TandemCoreTests
            .deletingLastPathComponent() // Tests
            .appendingPathComponent("Fixtures/vectors/core.json")
    }

    static func data() throws -> Data {
        try Data(contentsOf: url)
    }

    static func load() throws -> CoreVectors {
        try JSONDecoder().decode(CoreVectors.self, from: data())
    }

    /// The number of cases in every top-level group of the file, whatever its name.
    static func groupSizes() throws -> [String: Int] {
        let object = try JSONSerialization.jsonObject(with: data())
        let groups = try #require(object as? [String: Any], "core.json is not a JSON object")
        var sizes: [String: Int] = [:]
        for (name, cases) in groups {
            let list = try #require(cases as? [Any], "group \(name) is not a list of cases")
            sizes[name] = list.count
        }
        return sizes
    }
}

/// The groups of `core.json`; decoding fails if any of them is absent.
struct CoreVectors: Decodable {
    struct SnapIndexFromPixels: Decodable {
        var x: Double, width: Double, inset: Double, count: Int, index: Int
    }
    struct SnapPositionPixels: Decodable {
        var index: Int, width: Double, inset: Double, count: Int, x: Double
    }
    struct SnapIndexAt: Decodable {
        var f: Double, values: [Double], layout: String, index: Int
    }
    struct RangeDrag: Decodable {
        struct Thumbs: Decodable { var lower: Int, upper: Int }
        var scale: [Int], operable: [Int], minGap: Int, start: Thumbs, thumb: String, dx: Double, expect: Thumbs
    }
    struct SliderValueAt: Decodable {
        var f: Double, min: Double, max: Double, step: Double?, value: Double
    }
    struct SliderSet: Decodable {
        var value: Double, min: Double, max: Double, step: Double?, expect: Double
    }
    struct ColorHex: Decodable {
        var red: Double, green: Double, blue: Double, hex: String
    }
    struct ColorText: Decodable {
        var current: Double, text: String, expect: Double
    }
    struct GaugeFraction: Decodable {
        var value: Double, min: Double, max: Double, fraction: Double
    }

    var snapIndexFromPixels: [SnapIndexFromPixels]
    var snapPositionPixels: [SnapPositionPixels]
    var snapIndexAt: [SnapIndexAt]
    var rangeDrag: [RangeDrag]
    var sliderValueAt: [SliderValueAt]
    var sliderSet: [SliderSet]
    var colorHex: [ColorHex]
    var colorText: [ColorText]
    var gaugeFraction: [GaugeFraction]
}
