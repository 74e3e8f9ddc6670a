import Testing
@testable import TandemCore

/// One notion of equal text: shown texts in NFC without bidi
/// controls, capped in characters and in bytes.
@Suite("Shown text")
struct ShownTextTests {
    private let composed = "caf\u{E9}"
    private let decomposed = "cafe\u{301}"

    @Test("two spellings of one text become the same bytes")
    func nfc() {
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        #expect(Array(ShownText.clean(decomposed).utf8) == Array(composed.utf8))
        #expect(Array(ShownText.clean(composed).utf8) == Array(composed.utf8))
        // Hangul jamo compose too.
        #expect(Array(ShownText.clean("\u{1100}\u{1161}").utf8) == Array("\u{AC00}".utf8))
    }

    @Test("bidi embeddings, overrides, isolates and marks are removed; joiners and line breaks stay")
    func bidi() {
        let sneaky = "gain\u{202E}niag \u{2066}x\u{2069}\u{200E}\u{200F}\u{061C}\u{202A}"
        #expect(ShownText.clean(sneaky) == "gainniag x")
        #expect(ShownText.clean("👩\u{200D}💻") == "👩\u{200D}💻")
        #expect(ShownText.clean("one\ntwo") == "one\ntwo")
    }

    @Test("a cap of N characters is also a cap of 8N bytes")
    func caps() {
        #expect(ShownText.fits(String(repeating: "é", count: 15), characters: 15, bytes: ShownText.byteCap(characters: 15)))
        // 15 characters, each one letter under 1,000 combining marks: 30 KB.
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 1_000), count: 15)
        #expect(heavy.count == 15)
        #expect(!ShownText.fits(heavy, characters: 15, bytes: ShownText.byteCap(characters: 15)))
        #expect(ShownText.byteCap(characters: .max) == .max)
    }

    @Test("a schema keeps only clean text, so two spellings are one schema")
    func schema() throws {
        func room(_ title: String, _ label: String) throws -> RoomSchema {
            try RoomSchema(validating: RoomDefinition(id: "r", title: title, controls: [
                ControlDefinition(id: "k", type: "slider", label: label, min: 0, max: 1, group: "\u{202E}g" + decomposed,
                                  description: decomposed),
            ]))
        }
        let a = try room(composed, composed)
        let b = try room(decomposed + "\u{202E}", "\u{2067}" + decomposed)
        #expect(a == b)
        #expect(Array(b.title.utf8) == Array(composed.utf8))
        #expect(Array(b.controls[0].label.utf8) == Array(composed.utf8))
        #expect(Array((b.controls[0].group ?? "").utf8) == Array(("g" + composed).utf8))
        #expect(Array((b.controls[0].description ?? "").utf8) == Array(composed.utf8))
    }

    @Test("a title short in characters and long in bytes is refused")
    func heavyTitle() {
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 4_000), count: 15)
        #expect(throws: SchemaError(control: nil, field: "title", problem: .tooLong(120))) {
            try RoomSchema(validating: RoomDefinition(id: "r", title: heavy, controls: [
                ControlDefinition(id: "k", type: "slider", min: 0, max: 1),
            ]))
        }
    }
}
