import Foundation
import Testing
import TandemCore
import TandemWire
@testable import TandemStorage

/// Presets in storage: saved, listed, renamed, deleted, and gone with their room.
@Suite("Preset storage")
struct PresetStorageTests {
    static func preset(_ name: String, gain: Double = 0.8, by: String = "Ann", time: Int64 = 1_700_000_000_000) -> Preset {
        Preset(name: name, entries: [
            .init(control: "size", state: .snap(index: 4, value: 100)),
            .init(control: "blanks", state: .range(RangeState(lower: 2, upper: 3))),
            .init(control: "color", state: demoState("color", .red, 1)),
            .init(control: "gain", state: .slider(value: gain)),
        ], client: "c1", by: by, time: time)
    }

    @Test("a saved preset lists back exactly, sorted by name, per room")
    func saveAndList() throws {
        let storage = try Storage(path: ":memory:")
        try storage.savePreset(Self.preset("Warm"), room: "demo")
        try storage.savePreset(Self.preset("Cold", gain: 0.1, by: "Ben"), room: "demo")
        try storage.savePreset(Self.preset("Other"), room: "other")
        #expect(try storage.presets(room: "demo") == [Self.preset("Cold", gain: 0.1, by: "Ben"), Self.preset("Warm")])
        #expect(try storage.presets(room: "other").map(\.name) == ["Other"])
        #expect(try storage.presets(room: "none").isEmpty)
    }

    @Test("saving under a taken name replaces that preset; names are case-sensitive")
    func overwrite() throws {
        let storage = try Storage(path: ":memory:")
        try storage.savePreset(Self.preset("Warm"), room: "demo")
        try storage.savePreset(Self.preset("Warm", gain: 0.3, by: "Ben", time: 1_700_000_009_000), room: "demo")
        try storage.savePreset(Self.preset("warm"), room: "demo")
        #expect(try storage.presets(room: "demo") == [Self.preset("Warm", gain: 0.3, by: "Ben", time: 1_700_000_009_000), Self.preset("warm")])
    }

    @Test("rename moves a preset to a free name; a taken name is refused and nothing changes")
    func rename() throws {
        let storage = try Storage(path: ":memory:")
        try storage.savePreset(Self.preset("Warm"), room: "demo")
        try storage.savePreset(Self.preset("Cold", gain: 0.1), room: "demo")
        #expect(try storage.renamePreset("Warm", to: "Warmer", room: "demo"))
        #expect(try storage.presets(room: "demo").map(\.name) == ["Cold", "Warmer"])
        #expect(try storage.renamePreset("Nope", to: "X", room: "demo") == false)
        let error = #expect(throws: StorageError.self) { try storage.renamePreset("Cold", to: "Warmer", room: "demo") }
        #expect(error?.description.contains("already exists") == true)
        #expect(try storage.presets(room: "demo").map(\.name) == ["Cold", "Warmer"])
        #expect(try storage.presets(room: "demo").first { $0.name == "Warmer" }?.entries == Self.preset("x").entries)
    }

    @Test("delete forgets one preset and says whether there was one")
    func delete() throws {
        let storage = try Storage(path: ":memory:")
        try storage.savePreset(Self.preset("Warm"), room: "demo")
        try storage.savePreset(Self.preset("Cold"), room: "demo")
        #expect(try storage.deletePreset("Warm", room: "demo"))
        #expect(try storage.deletePreset("Warm", room: "demo") == false)
        #expect(try storage.presets(room: "demo").map(\.name) == ["Cold"])
    }

    @Test("deleting a room deletes its presets, not other rooms' ones")
    func deletedWithTheRoom() throws {
        let storage = try Storage(path: ":memory:")
        let other = try schema("other", [ControlDefinition(id: "x", type: "slider", min: 0, max: 10, step: 1)])
        try storage.saveRoom(.demo)
        try storage.saveRoom(other)
        try storage.savePreset(Self.preset("Warm"), room: "demo")
        try storage.savePreset(Self.preset("Mine"), room: "other")
        try storage.deleteRoom("other")
        #expect(try storage.presets(room: "other").isEmpty)
        #expect(try storage.presets(room: "demo").map(\.name) == ["Warm"])
    }

    @Test("presets survive closing and opening the file again, names with quotes and emoji included")
    func survivesReopen() throws {
        try withTempFolder { folder in
            let path = folder + "/tandem.db"
            let odd = Self.preset("It's \"warm\" 🎹")
            do {
                let storage = try Storage(path: path)
                try storage.savePreset(Self.preset("Warm"), room: "demo")
                try storage.savePreset(odd, room: "demo")
                storage.close()
            }
            let storage = try Storage(path: path)
            #expect(try storage.presets(room: "demo") == [odd, Self.preset("Warm")].sorted { $0.name < $1.name })
        }
    }

    @Test("states are stored as a JSON object of control id → wire state")
    func storedAsWireJSON() throws {
        try withTempFolder { folder in
            let path = folder + "/tandem.db"
            let storage = try Storage(path: path)
            try storage.savePreset(Self.preset("Warm"), room: "demo")
            storage.close()
            #expect(try sqliteRows(path, "SELECT states FROM presets") == [##"{"size":{"index":4,"value":100},"blanks":{"lower":2,"upper":3},"color":{"red":1,"green":0.4,"blue":0.6,"hex":"#FF6699"},"gain":{"value":0.8}}"##])
        }
    }

    @Test("a stored state that is not a control state is left out of its preset; states that are not an object are an error naming it")
    func damagedRows() throws {
        let storage = try Storage(path: ":memory:")
        try storage.exec("""
            INSERT INTO presets VALUES('demo', 'Half', '{"gain":{"value":0.2},"size":{"what":1},"x":3}', 'c1', 'Ann', 1);
            """, "test")
        #expect(try storage.presets(room: "demo").map(\.entries) == [[.init(control: "gain", state: .slider(value: 0.2))]])
        try storage.exec("INSERT INTO presets VALUES('demo', 'Broken', '[1,2]', 'c1', 'Ann', 1)", "test")
        let error = #expect(throws: StorageError.self) { try storage.presets(room: "demo") }
        #expect(error?.description.contains("'Broken'") == true)
    }

    @Test("the v1.1 kinds' states (toggle, xy pad, log slider) round-trip through a preset")
    func kindsRoundTrip() throws {
        let storage = try Storage(path: ":memory:")
        let synth = Preset(name: "Bright", entries: [
            .init(control: "filter", state: .toggle(on: true)),
            .init(control: "pad", state: .xy(x: 0.25, y: 1250)),
            .init(control: "cutoff", state: .slider(value: 1250)),
        ], client: "c2", by: "Ben", time: 5)
        try storage.savePreset(synth, room: "synth")
        #expect(try storage.presets(room: "synth") == [synth])
    }
}
