import Foundation
import Testing
@testable import TandemCore

/// Writes `Tests/Fixtures/vectors/kinds.json` from the inputs below and the
/// core's own math. Off unless `TANDEM_WRITE_KIND_VECTORS` is set: the file is
/// checked in, and `KindVectorTests` holds the core to it from then on.
@Suite("Writing the kinds' vectors")
struct KindVectorWriter {
    @Test("writes kinds.json", .enabled(if: ProcessInfo.processInfo.environment["TANDEM_WRITE_KIND_VECTORS"] != nil))
    func writeVectors() throws {
        var groups: [(String, [String])] = []

        let logInputs: [(Double, Double, Int, Double)] = [
            (20, 20000, 3, 0), (20, 20000, 3, 0.25), (20, 20000, 3, 1.0 / 3), (20, 20000, 3, 0.5),
            (20, 20000, 3, 0.75), (20, 20000, 3, 1), (20, 20000, 3, -0.5), (20, 20000, 3, 1.5),
            (1, 10, 1, 0.5), (1, 10, 1, 0.9), (0.001, 1000, 2, 0.5), (50, 5000, 4, 0.1),
            (20, 20000, 15, 0.5), (12345, 99999, 2, 0), (12345, 99999, 2, 1), (12345, 99999, 2, 0.5),
            (0.5, 2, 3, 0.5), (1e-6, 1e6, 5, 0.3),
        ]
        groups.append(("log", logInputs.map { min, max, d, f in
            let v = SliderMath(min: min, max: max, scale: .log, digits: d).value(at: f)
            return obj(["min": n(min), "max": n(max), "digits": "\(d)", "fraction": n(f), "value": n(v)])
        }))

        let positionInputs: [(Double, Double, Double)] = [
            (20, 20000, 20), (20, 20000, 20000), (20, 20000, 200), (20, 20000, 2000), (20, 20000, 632),
            (20, 20000, 440), (1, 10, 3), (1, 10, 5), (0.001, 1000, 1), (0.5, 2, 1), (50, 5000, 123.4),
            (1e-6, 1e6, 0.01),
        ]
        groups.append(("logPosition", positionInputs.map { min, max, v in
            let f = SliderMath(min: min, max: max, scale: .log, digits: 3).position(of: v)
            return obj(["min": n(min), "max": n(max), "value": n(v), "fraction": n(f)])
        }))

        let stepInputs: [(Double, Double, Int, Double, Int)] = [
            (20, 20000, 3, 440, 1), (20, 20000, 3, 440, -1), (20, 20000, 3, 440, 10), (20, 20000, 3, 440, 100),
            (20, 20000, 3, 440, -1000), (20, 20000, 3, 20000, 1), (20, 20000, 3, 20, -1), (20, 20000, 3, 20, 1),
            (1, 10, 1, 1, 1), (1, 10, 1, 1, 50), (1, 10, 1, 9, 3), (0.001, 1000, 2, 1, 5), (20, 20000, 3, 632, 0),
        ]
        groups.append(("logStep", stepInputs.map { min, max, d, v, by in
            let r = SliderMath(min: min, max: max, scale: .log, digits: d).stepping(v, by: by)
            return obj(["min": n(min), "max": n(max), "digits": "\(d)", "value": n(v), "by": "\(by)", "result": n(r)])
        }))

        let setInputs: [(Double, Double, Int, Double)] = [
            (20, 20000, 3, 440), (20, 20000, 3, 443.7), (20, 20000, 3, 0.5), (20, 20000, 3, -7), (20, 20000, 3, 1e9),
            (20, 20000, 3, 1234.5), (20, 20000, 3, 125.5), (20, 20000, 3, 19999), (12345, 99999, 2, 50000),
            (12345, 99999, 2, 12400), (12345, 99999, 2, 99500), (1, 10, 1, 2.5), (1, 10, 1, 9.6), (0.001, 1000, 2, 0.01234),
        ]
        groups.append(("logSet", setInputs.map { min, max, d, s in
            let v = SliderMath(min: min, max: max, scale: .log, digits: d).setting(s)
            return obj(["min": n(min), "max": n(max), "digits": "\(d)", "set": n(s), "value": n(v)])
        }))

        let digitInputs: [(Double, Int)] = [
            (0.0123456, 3), (123456, 2), (0.125, 2), (2.5, 1), (-2.5, 1), (0.285, 2), (9.995, 3), (999.96, 4),
            (1e-300, 3), (1.7976931348623157e308, 3), (0, 3), (123.456, 15), (1, 1), (-0.000456789, 2),
            (1000, 1), (99.5, 2), (0.1 + 0.2, 15), (Double.leastNonzeroMagnitude, 3),
        ]
        groups.append(("digits", digitInputs.map { v, d in
            obj(["value": n(v), "digits": "\(d)", "rounded": n(roundSignificant(v, digits: d))])
        }))

        let linear = ["min": "0", "max": "1"]
        let stepped = ["min": "-10", "max": "10", "step": "0.5"]
        let log = ["min": "20", "max": "20000", "scale": "\"log\""]
        let logDigits = ["min": "0.1", "max": "10", "scale": "\"log\"", "digits": "2"]
        let integer = ["min": "0", "max": "127", "step": "1"]
        typealias Drag = ([String: String], [String: String], (Double, Double), (Double, Double)?, (Double, Double)?)
        let drags: [Drag] = [
            (linear, linear, (0.5, 0.5), (0.1, 0.2), nil), (linear, linear, (0.5, 0.5), (-0.7, 0.9), nil),
            (linear, linear, (0.5, 0.5), nil, (0.25, 0.75)), (linear, linear, (0.5, 0.5), nil, (-1, 2)),
            (stepped, integer, (0, 64), (0.013, -0.1), nil), (stepped, integer, (0, 64), (0.0125, 0.0), nil),
            (stepped, integer, (10, 127), (0.3, 0.3), nil), (stepped, integer, (-10, 0), nil, (0.5, 0.5)),
            (log, linear, (20, 0), (0.5, 0.5), nil), (log, linear, (440, 0.5), (0.1, 0), nil),
            (log, logDigits, (20, 0.1), nil, (1, 1)), (log, logDigits, (1000, 1), (-0.2, 0.25), nil),
            (logDigits, stepped, (1, 0), nil, (0.3, 0.51)), (linear, log, (1, 20000), (1e-9, -1e-9), nil),
        ]
        groups.append(("xy", try drags.map { x, y, state, d, at in
            let control = try KindVectorFile.pad(["x": decode(x), "y": decode(y)])
            let s = ControlState.xy(x: state.0, y: state.1)
            var fields = ["x": obj(x), "y": obj(y), "state": xyJSON(s)]
            let point: TrackPoint
            if let at {
                point = TrackPoint(at.0, at.1)
                fields["at"] = "[\(n(at.0)),\(n(at.1))]"
            } else {
                let anchor = control.point(of: .xy, in: s)
                point = TrackPoint(anchor.x + d!.0, anchor.y + d!.1)
                fields["dx"] = n(d!.0)
                fields["dy"] = n(d!.1)
            }
            fields["result"] = xyJSON(control.placing(.xy, at: point, against: s))
            return obj(fields)
        }))

        let steps: [([String: String], [String: String], (Double, Double), (Int, Int))] = [
            (linear, linear, (0.5, 0.5), (1, -1)), (linear, linear, (0.995, 0.005), (1, -1)),
            (linear, linear, (0, 1), (-3, 3)), (stepped, integer, (0, 64), (1, 1)), (stepped, integer, (0, 64), (-100, 100)),
            (stepped, integer, (9.5, 1), (1, -1)), (log, linear, (440, 0.5), (1, 0)), (log, linear, (440, 0.5), (-10, 10)),
            (log, logDigits, (20000, 10), (1, 1)), (logDigits, stepped, (1, 0), (5, 0)), (linear, linear, (0.3, 0.7), (0, 0)),
        ]
        groups.append(("xyStep", try steps.map { x, y, state, by in
            let control = try KindVectorFile.pad(["x": decode(x), "y": decode(y)])
            let s = ControlState.xy(x: state.0, y: state.1)
            let r = control.stepping(.xy, by: by.0, byY: by.1, from: s)
            return obj(["x": obj(x), "y": obj(y), "state": xyJSON(s), "by": "[\(by.0),\(by.1)]", "result": xyJSON(r)])
        }))

        let toggles: [(Bool, String, String, Bool)] = [
            (false, "step", "1", true), (true, "step", "1", false), (false, "step", "-1", true), (true, "step", "2", false),
            (false, "step", "0", false), (true, "step", "0", true), (false, "step", "-7", true),
            (false, "set", "true", true), (true, "set", "false", false), (true, "set", "true", true),
            (false, "set", "1", true), (true, "set", "0", false), (false, "set", "0", false),
        ]
        groups.append(("toggle", toggles.map { on, op, arg, result in
            obj(["on": "\(on)", "op": "\"\(op)\"", "arg": arg, "result": "\(result)"])
        }))

        let order = ["log", "logPosition", "logStep", "logSet", "digits", "xy", "xyStep", "toggle"]
        var text = "{\n"
        for (i, name) in order.enumerated() {
            let cases = groups.first { $0.0 == name }!.1
            text += "  \"\(name)\": [\n    " + cases.joined(separator: ",\n    ") + "\n  ]" + (i < order.count - 1 ? ",\n" : "\n")
        }
        text += "}\n"
        try text.write(to: KindVectorFile.url, atomically: true, encoding: .utf8)
    }

    /// A number as JSON: Swift's shortest round-trip form, whole numbers without ".0".
    private func n(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int(x)) }
        return "\(x)"
    }

    private func obj(_ fields: [String: String]) -> String {
        "{" + fields.keys.sorted().map { "\"\($0)\":\(fields[$0]!)" }.joined(separator: ",") + "}"
    }

    private func xyJSON(_ s: ControlState) -> String {
        guard case let .xy(x, y) = s else { return "null" }
        return obj(["x": n(x), "y": n(y)])
    }

    private func decode(_ axis: [String: String]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(obj(axis).utf8)) as? [String: Any])
    }
}
