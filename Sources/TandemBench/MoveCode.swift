import TandemWire

/// How a dragger's moves are numbered so that every receiver can tell which
/// move a previewed value reflects.
///
/// The bench drags sliders with `min` 0, `max` 1,000,000, `step` 1 and
/// `commit` `release` (moves preview; nothing is written to storage). A
/// dragger begins its gesture with `"at": 0`, so the gesture's anchor is 0 and
/// the begin previews the value 0, which is no move. Move `n` (from 0) then
/// sends `"dx": v/1000000` with `v = n mod 1,000,000 + 1`; the server
/// previews exactly the value `v` (`round(dx * 1,000,000)` on the step-1 grid).
///
/// A receiver turns a value `v` in 1...1,000,000 back into the largest `n`
/// with that code that is not later than the last move the schedule has made
/// due by the receipt (no state can reflect a move not yet sent). The code
/// repeats every 1,000,000 moves, 4.6 hours at 60 Hz, so within a run the
/// answer is the move itself.
public enum MoveCode {
    /// How many distinct codes there are before they repeat.
    public static let period = 1_000_000

    /// The slider's `max` (its `min` is 0, its `step` 1).
    public static let sliderMax = 1_000_000

    /// The slider value that move `n` previews: `n mod 1,000,000 + 1`.
    public static func value(ofMove n: Int) -> Int {
        precondition(n >= 0, "moves are numbered from 0")
        return n % period + 1
    }

    /// The `dx` move `n` sends, relative to a gesture begun with `"at": 0`.
    public static func dx(ofMove n: Int) -> Double {
        Double(value(ofMove: n)) / Double(sliderMax)
    }

    /// The move a previewed `value` reflects, given that move `latest` is the
    /// newest that could have been sent; `nil` for a value no move previews
    /// (0, off the grid, out of range) or when no move up to `latest` has that code.
    public static func move(fromValue value: Double, latest: Int) -> Int? {
        guard value.isFinite, latest >= 0 else { return nil }
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        guard abs(rounded - value) <= 1e-6, rounded >= 1, rounded <= Double(sliderMax) else { return nil }
        let residue = Int(rounded) - 1
        let latestResidue = latest % period
        let n = latest - latestResidue + residue - (residue > latestResidue ? period : 0)
        return n >= 0 ? n : nil
    }

    /// The id of the bench room's `k`th slider: `bench-0`, `bench-1`, ...
    public static func sliderID(_ k: Int) -> String { "bench-\(k)" }

    /// The body of `POST /api/rooms` that creates a room of `sliders` bench sliders.
    public static func roomJSON(id: String, sliders: Int, title: String = "tandem-bench") -> [UInt8] {
        var controls: [JSON] = []
        for k in 0..<sliders {
            controls.append(.object([
                JSONMember("id", .string(sliderID(k))),
                JSONMember("type", "slider"),
                JSONMember("label", .string("Bench slider \(k)")),
                JSONMember("commit", "release"),
                JSONMember("min", 0),
                JSONMember("max", .number(Double(sliderMax))),
                JSONMember("step", 1),
            ]))
        }
        let room: JSON = .object([
            JSONMember("id", .string(id)),
            JSONMember("title", .string(title)),
            JSONMember("controls", .array(controls)),
        ])
        return room.bytes
    }

    /// `{"type":"drag","seq":S,"control":C,"phase":"begin","at":0}`
    public static func beginMessage(seq: Int, control: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.append(raw: "{\"type\":\"drag\",\"seq\":")
        writer.append(int: seq)
        writer.append(raw: ",\"control\":")
        writer.append(string: control)
        writer.append(raw: ",\"phase\":\"begin\",\"at\":0}")
        return writer.bytes
    }

    /// `{"type":"drag","seq":S,"control":C,"phase":"move","dx":D}` for move `n`.
    public static func moveMessage(seq: Int, control: String, move n: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.append(raw: "{\"type\":\"drag\",\"seq\":")
        writer.append(int: seq)
        writer.append(raw: ",\"control\":")
        writer.append(string: control)
        writer.append(raw: ",\"phase\":\"move\",\"dx\":")
        writer.append(number: dx(ofMove: n))
        writer.append(byte: UInt8(ascii: "}"))
        return writer.bytes
    }
}
