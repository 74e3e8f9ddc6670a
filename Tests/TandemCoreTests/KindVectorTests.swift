import Foundation
import Testing
@testable import TandemCore

/// The vectors of the kinds added in v1.1 (`Tests/Fixtures/vectors/kinds.json`,
/// which the web client's tests read too): log sliders, significant digits,
/// xy pads and toggles. Values rounded to `digits` and toggles match exactly;
/// track fractions and unrounded values to 1e-9.
///
/// The file was written by `writeVectors` below (run it with
/// `TANDEM_WRITE_KIND_VECTORS=1 swift test --filter KindVectorTests`) and
/// checked once against an independent Python computation (libm's exp and log).
@Suite("The kinds' math vectors")
struct KindVectorTests {
    static let groups: Set<String> = ["log", "logPosition", "logStep", "logSet", "digits", "xy", "xyStep", "toggle"]

    @Test("has every group, each with at least ten cases, and nothing else")
    func groupsArePresent() throws {
        let file = try KindVectorFile.load()
        #expect(Set(file.keys) == Self.groups)
        for group in Self.groups {
            #expect((file[group] as? [Any])?.count ?? 0 >= 10, "\(group)")
        }
    }

    @Test("log: a track fraction gives the rounded, clamped value")
    func log() throws {
        for (n, c) in try KindVectorFile.cases("log").enumerated() {
            let math = SliderMath(min: c.num("min"), max: c.num("max"), scale: .log, digits: c.int("digits"))
            #expect(math.value(at: c.num("fraction")) == c.num("value"), "case \(n): \(c)")
        }
    }

    @Test("logPosition: a value sits at the track fraction ln(v/min)/ln(max/min)")
    func logPosition() throws {
        for (n, c) in try KindVectorFile.cases("logPosition").enumerated() {
            let math = SliderMath(min: c.num("min"), max: c.num("max"), scale: .log, digits: 3)
            #expect(abs(math.position(of: c.num("value")) - c.num("fraction")) <= 1e-9, "case \(n): \(c)")
        }
    }

    @Test("logStep: a step moves the track fraction by n/100")
    func logStep() throws {
        for (n, c) in try KindVectorFile.cases("logStep").enumerated() {
            let math = SliderMath(min: c.num("min"), max: c.num("max"), scale: .log, digits: c.int("digits"))
            #expect(math.stepping(c.num("value"), by: c.int("by")) == c.num("result"), "case \(n): \(c)")
        }
    }

    @Test("logSet: a set clamps, then rounds to digits (then clamps again)")
    func logSet() throws {
        for (n, c) in try KindVectorFile.cases("logSet").enumerated() {
            let math = SliderMath(min: c.num("min"), max: c.num("max"), scale: .log, digits: c.int("digits"))
            #expect(math.setting(c.num("set")) == c.num("value"), "case \(n): \(c)")
        }
    }

    @Test("digits: rounding to significant digits, half away from zero")
    func digits() throws {
        for (n, c) in try KindVectorFile.cases("digits").enumerated() {
            #expect(roundSignificant(c.num("value"), digits: c.int("digits")) == c.num("rounded"), "case \(n): \(c)")
        }
    }

    @Test("xy: a drag by dx/dy (or to at) moves both axes, each snapped and clamped")
    func xy() throws {
        for (n, c) in try KindVectorFile.cases("xy").enumerated() {
            let control = try KindVectorFile.pad(c)
            let state = try KindVectorFile.xyState(c["state"])
            let point: TrackPoint
            if let at = c["at"] as? [Double] {
                point = TrackPoint(at[0], at[1])
            } else {
                let anchor = control.point(of: .xy, in: state)
                point = TrackPoint(anchor.x + c.num("dx"), anchor.y + c.num("dy"))
            }
            let result = control.placing(.xy, at: point, against: state)
            #expect(KindVectorFile.close(result, try KindVectorFile.xyState(c["result"])), "case \(n): \(c) gave \(result)")
        }
    }

    @Test("xyStep: each axis steps as a slider does")
    func xyStep() throws {
        for (n, c) in try KindVectorFile.cases("xyStep").enumerated() {
            let control = try KindVectorFile.pad(c)
            let by = try #require(c["by"] as? [Int])
            let result = control.stepping(.xy, by: by[0], byY: by[1], from: try KindVectorFile.xyState(c["state"]))
            #expect(KindVectorFile.close(result, try KindVectorFile.xyState(c["result"])), "case \(n): \(c) gave \(result)")
        }
    }

    @Test("toggle: any non-zero step flips it; set takes true, false, 1, 0")
    func toggle() throws {
        for (n, c) in try KindVectorFile.cases("toggle").enumerated() {
            var room = RoomDriver(try RoomSchema(validating: RoomDefinition(id: "t", controls: [
                ControlDefinition(id: "t", type: "toggle", state: StateDefinition(on: c["on"] as? Bool)),
            ])))
            room.join("c1")
            let arg = c["arg"]
            // A JSON boolean reads as an NSNumber of ObjC type "c" (char), a whole number as "i" or "q".
            let isBoolean = (arg as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
            let effects = if c["op"] as? String == "step" {
                room.step("c1", "t", by: c.num("arg"))
            } else if isBoolean {
                room.set("c1", "t", .flag(c["arg"] as? Bool ?? false))
            } else {
                room.set("c1", "t", .number(c.num("arg")))
            }
            #expect(effects.rejects.isEmpty, "case \(n): \(c)")
            #expect(room.state("t") == .toggle(on: c["result"] as? Bool ?? false), "case \(n): \(c)")
        }
    }
}

/// Reading `kinds.json` with Foundation (tests only).
enum KindVectorFile {
    static var url: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/kinds.json")
    }

    static func load() throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func cases(_ group: String) throws -> [[String: Any]] {
        let cases = try #require(try load()[group] as? [[String: Any]], "group \(group)")
        #expect(!cases.isEmpty)
        return cases
    }

    static func axis(_ json: Any?) throws -> Axis {
        let a = try #require(json as? [String: Any])
        let scale = SliderScale(rawValue: a["scale"] as? String ?? "linear") ?? .linear
        var digits = a["digits"] as? Int
        if scale == .log, digits == nil { digits = SliderMath.defaultLogDigits }
        return Axis(math: SliderMath(min: a.num("min"), max: a.num("max"), step: a["step"] as? Double,
                                     scale: scale, digits: digits))
    }

    static func pad(_ c: [String: Any]) throws -> Control {
        let spec = XYSpec(x: try axis(c["x"]), y: try axis(c["y"]))
        return Control(id: "pad", label: "pad", commit: .release, kind: .xy(spec),
                       initial: .xy(x: spec.x.math.min, y: spec.y.math.min))
    }

    static func xyState(_ json: Any?) throws -> ControlState {
        let s = try #require(json as? [String: Any])
        return .xy(x: s.num("x"), y: s.num("y"))
    }

    static func close(_ a: ControlState, _ b: ControlState) -> Bool {
        guard case let .xy(ax, ay) = a, case let .xy(bx, by) = b else { return false }
        return abs(ax - bx) <= 1e-9 && abs(ay - by) <= 1e-9
    }
}

extension Dictionary where Key == String, Value == Any {
    func num(_ key: String) -> Double { (self[key] as? NSNumber)?.doubleValue ?? .nan }
    func int(_ key: String) -> Int { (self[key] as? NSNumber)?.intValue ?? 0 }
}
