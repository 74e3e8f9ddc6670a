import Testing
@testable import TandemCore

@Suite("The demo room")
struct DemoRoomTests {
    @Test("has the protocol's five controls at their initial states")
    func demoRoomMatchesTheProtocolTable() {
        let room = Room(schema: .demo)
        #expect(room.schema.controls.map(\.id) == ["size", "blanks", "color", "gain", "bpm"])
        #expect(room.schema.controls.map(\.label) == ["Circle size", "Blank cells", "Colour", "Gain", "BPM"])
        #expect(room.committed[0] == .snap(index: 2, value: 60))
        #expect(room.committed[1] == .range(RangeState(lower: 0, upper: 1)))
        #expect(room.committed[2] == .color(RGB(red: 0.2, green: 0.4, blue: 0.6)))
        if case let .color(rgb) = room.committed[2] { #expect(rgb.hex == "#336699") }
        #expect(room.committed[3] == .slider(value: 0.5))
        #expect(room.committed[4] == .gauge(value: 67, fraction: 67.0 / 170))
        #expect(room.revision == 0)
        for (i, control) in room.schema.controls.enumerated() {
            #expect(control.isValid(room.committed[i]), "\(control.id)")
        }
    }
}
