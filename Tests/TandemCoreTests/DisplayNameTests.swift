import Testing
@testable import TandemCore

/// What a display name becomes before others see it.
@Suite("Display names")
struct DisplayNameTests {
    @Test("control characters are removed and whitespace runs become one space, trimmed at both ends")
    func controlsAndWhitespace() {
        #expect(DisplayName.clean("  Ann \t\n  Lee  ") == "Ann Lee")
        #expect(DisplayName.clean("A\u{0}n\u{7}n\u{7F}\u{85}") == "Ann")
        #expect(DisplayName.clean("Ann\u{2028}Lee") == "Ann Lee")
    }

    @Test("bidi overrides, isolates and marks are removed, so a name cannot read backwards")
    func bidi() {
        let marks: [UInt32] = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C, 0xFEFF, 0x200B]
        for mark in marks {
            let raw = "Ann" + String(Unicode.Scalar(mark)!) + "gpj.exe"
            #expect(DisplayName.clean(raw) == "Anngpj.exe", "U+\(String(mark, radix: 16))")
        }
    }

    @Test("joiners that emoji and scripts need are kept")
    func joiners() {
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(DisplayName.clean(family) == family)
        #expect(DisplayName.clean("می\u{200C}خواهم") == "می\u{200C}خواهم")
    }

    @Test("names are cut to 64 characters, counting what a person sees, not bytes")
    func length() {
        #expect(DisplayName.clean(String(repeating: "a", count: 100)).count == 64)
        let flags = String(repeating: "🇫🇷", count: 70)
        #expect(DisplayName.clean(flags) == String(repeating: "🇫🇷", count: 64))
        let accented = String(repeating: "e\u{301}", count: 70)
        #expect(DisplayName.clean(accented).count == 64)
        #expect(DisplayName.clean(String(repeating: "a", count: 63) + " b") == String(repeating: "a", count: 63))
        #expect(DisplayName.clean(String(repeating: "a", count: 64)).count == 64)
    }

    @Test("an empty or invisible name becomes Guest")
    func fallback() {
        for raw in ["", "   ", "\u{202E}\u{200F}", "\u{0}\u{1}"] {
            #expect(DisplayName.clean(raw) == "Guest", "\(raw.debugDescription)")
        }
    }

    @Test("Room.join applies it: the welcome's peers carry the cleaned name")
    func joinCleans() {
        var room = Room(schema: .demo)
        let (welcome, _) = room.join(ClientID("c1"), name: "\u{202E}evil\u{202C}  name\u{0}", at: .zero)
        #expect(welcome.peers.first?.name == "evil name")
    }
}
