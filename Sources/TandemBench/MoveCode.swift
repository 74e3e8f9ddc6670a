import TandemWire

/// The bench room: when a room has too few thumbs for the draggers, the
/// bench creates one of sliders with `min` 0, `max` 1,000,000, `step` 1 and
/// `commit` `release` (moves preview; nothing is written to storage), dragged
/// as `MoveTrack`s of 1,000,000 positions.
public enum MoveCode {
    /// The slider's `max` (its `min` is 0, its `step` 1).
    public static let sliderMax = 1_000_000

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
}
