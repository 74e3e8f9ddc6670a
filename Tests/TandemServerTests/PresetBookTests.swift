import Testing
import TandemCore
import TandemWire
@testable import TandemServer

/// A room's presets in the server's memory: the rules of names and of the per-room limit.
@Suite("Preset book")
struct PresetBookTests {
    static func preset(_ name: String, gain: Double = 0.5) -> Preset {
        Preset(name: name, entries: [.init(control: "gain", state: .slider(value: gain))], client: "c1", by: "Ann", time: 1)
    }

    @Test("the list is sorted by name; saving a taken name replaces that preset")
    func sortedAndReplaced() {
        var book = PresetBook([Self.preset("Warm"), Self.preset("Cold")])
        #expect(book.sorted.map(\.name) == ["Cold", "Warm"])
        book.save(Self.preset("Warm", gain: 0.9))
        #expect(book.count == 2)
        #expect(book.preset(named: "Warm")?.states["gain"] == .slider(value: 0.9))
        #expect(book.preset(named: "warm") == nil, "names are case-sensitive")
    }

    @Test("a 101st name is refused as a conflict, saving over one of the 100 is not")
    func limit() {
        var book = PresetBook()
        for k in 0..<PresetName.maxPerRoom { book.save(Self.preset("p\(k)")) }
        let refusal = book.refusalToSave(Self.preset("one more"))
        #expect(refusal?.code == .badValue && refusal?.conflict == true)
        #expect(book.refusalToSave(Self.preset("p7")) == nil)
    }

    @Test("rename needs the preset and a free name (its own is fine); delete and recall need the preset")
    func renameAndUse() {
        var book = PresetBook([Self.preset("Warm"), Self.preset("Cold")])
        #expect(book.refusalToRename("Nope", to: "X")?.code == .unknownPreset)
        #expect(book.refusalToRename("Warm", to: "Cold")?.conflict == true)
        #expect(book.refusalToRename("Warm", to: "Warm") == nil)
        #expect(book.refusalToUse("Nope")?.code == .unknownPreset)
        book.rename("Warm", to: "Warmer")
        #expect(book.sorted.map(\.name) == ["Cold", "Warmer"])
        #expect(book.preset(named: "Warmer")?.name == "Warmer")
        book.delete("Cold")
        #expect(book.sorted.map(\.name) == ["Warmer"])
    }

    @Test("the encoded presets frame follows every change")
    func frameFollows() {
        var book = PresetBook([Self.preset("Warm")])
        #expect(book.frame == PresetMessages.frame([Self.preset("Warm")]))
        book.save(Self.preset("Cold"))
        book.rename("Warm", to: "Hot")
        #expect(book.frame == PresetMessages.frame(book.sorted))
        book.delete("Cold")
        book.delete("Hot")
        #expect(String(decoding: book.frame, as: UTF8.self) == #"{"type":"presets","presets":[]}"#)
    }
}
