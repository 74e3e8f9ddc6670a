import Testing
import TandemCore
import TandemWire
@testable import TandemServer

/// A room's presets in the server's memory: the rules of names and of the per-room limit.
@Suite("Preset book")
struct PresetBookTests {
    static func preset(_ name: String, gain: Double = 0.5, time: Int64 = 1) -> Preset {
        Preset(name: name, entries: [.init(control: "gain", state: .slider(value: gain))], client: "c1", by: "Ann", time: time)
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
        let got1 = book.frame()
        #expect(got1 == PresetMessages.frame([Self.preset("Warm")]))
        book.save(Self.preset("Cold"))
        book.rename("Warm", to: "Hot")
        let got2 = book.frame()
        #expect(got2 == PresetMessages.frame(book.sorted))
        book.delete("Cold")
        book.delete("Hot")
        let got3 = book.frame()
        #expect(String(decoding: got3, as: UTF8.self) == #"{"type":"presets","presets":[]}"#)
    }

    @Test("stored spellings of one name load as one preset, the newest winning; the others are strays to delete")
    func spellingsCollapse() {
        let nfc = "Caf\u{E9}", nfd = "Cafe\u{301}", bidi = "Caf\u{E9}\u{202E}"
        var book = PresetBook([Self.preset(nfc, gain: 0.1, time: 5), Self.preset(nfd, gain: 0.2, time: 9),
                               Self.preset(bidi, gain: 0.3, time: 7), Self.preset("Cold", time: 1), Self.preset("a/b", time: 1)])
        #expect(book.count == 2)
        #expect(book.preset(named: nfc)?.states["gain"] == .slider(value: 0.2), "the newest spelling wins")
        #expect(book.preset(named: nfc).map { Array($0.name.utf8) } == Array(nfc.utf8), "keyed by the cleaned bytes")
        // The winner was stored as NFD: stored again under the NFC name; the bidi spelling and the non-name go.
        #expect(book.rekeyed.map { Array($0.stored.utf8) } == [Array(nfd.utf8)])
        #expect(Set(book.strays.map { Array($0.utf8) }) == [Array(bidi.utf8), Array("a/b".utf8)])
        #expect(!book.strays.contains { $0.utf8.elementsEqual(nfc.utf8) }, "the NFC row is overwritten by the winner, not deleted")
        book.tidied()
        #expect(book.strays.isEmpty && book.rekeyed.isEmpty)
    }

    @Test("a book of clean names has nothing to tidy")
    func nothingToTidy() {
        let book = PresetBook([Self.preset("Warm"), Self.preset("Cold")])
        #expect(book.strays.isEmpty && book.rekeyed.isEmpty)
    }

    @Test("the list's size is capped: a save that would pass it is refused as a conflict")
    func sizeCap() {
        var book = PresetBook()
        let entries = (0..<400).map { Preset.Entry(control: "control-\($0)", state: .slider(value: 0.123456789)) }
        var k = 0
        while book.refusalToSave(Preset(name: "p\(k)", entries: entries, client: "c1", by: "Ann", time: 1)) == nil, k < PresetName.maxPerRoom {
            book.save(Preset(name: "p\(k)", entries: entries, client: "c1", by: "Ann", time: 1))
            k += 1
        }
        #expect(k < PresetName.maxPerRoom, "large presets reach the byte cap before the count cap")
        #expect(book.bytes <= PresetName.maxListBytes)
        let got4 = book.frame()
        #expect(got4.count <= PresetName.maxListBytes + 64)
        let refusal = book.refusalToSave(Preset(name: "more", entries: entries, client: "c1", by: "Ann", time: 1))
        #expect(refusal?.conflict == true && refusal?.message.contains("KiB") == true)
        #expect(book.refusalToSave(Preset(name: "p0", entries: entries, client: "c1", by: "Ann", time: 1)) == nil, "replacing one keeps the size")
    }

    @Test("deltas are absolute: applying a run again over a book that has it changes nothing")
    func deltasReplay() {
        var book = PresetBook([Self.preset("A", gain: 0.1)])
        let run: [PresetChangeNote] = [.saved(Self.preset("B", gain: 0.2)), .moved(from: "A", Self.preset("C", gain: 0.1)),
                                       .saved(Self.preset("A", gain: 0.3)), .deleted("B")]
        for note in run { book.apply(note) }
        let once = book.sorted
        #expect(once.map(\.name) == ["A", "C"])
        for note in run { book.apply(note) }
        #expect(book.sorted == once)
    }
}

/// Preset names: one notion of equal text, and a byte cap beside the character cap.
@Suite("Preset names")
struct PresetNameTests {
    @Test("spellings of one name clean to the same bytes; bidi controls are removed")
    func oneName() throws {
        let nfc = try PresetName.clean("Caf\u{E9}").get()
        for spelling in ["Cafe\u{301}", "\u{202E}Caf\u{E9}\u{202C}", " Caf\u{E9}\u{200E} ", "\u{2067}Cafe\u{301}\u{2069}"] {
            let cleaned = try PresetName.clean(spelling).get()
            #expect(Array(cleaned.utf8) == Array(nfc.utf8), "\(spelling.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect((try? PresetName.clean("\u{202E}\u{200F}").get()) == nil, "nothing left: empty")
    }

    @Test("a name within 60 characters but past the byte cap is refused, naming the bytes")
    func byteCap() {
        let heavy = String(repeating: "a\u{300}\u{301}\u{302}\u{303}\u{304}", count: 60)
        #expect(heavy.count == 60)
        guard case let .failure(problem) = PresetName.clean(heavy) else { Issue.record("accepted"); return }
        #expect(problem.message.contains("\(PresetName.maxBytes) bytes"))
        guard case let .failure(huge) = PresetName.clean("e" + String(repeating: "\u{301}", count: 2000)) else { Issue.record("accepted"); return }
        #expect(huge.message.contains("bytes"))
        #expect((try? PresetName.clean(String(repeating: "\u{E9}", count: 60)).get()) != nil, "60 accented letters fit")
    }
}

/// How often a room's list goes out: at once after a quiet interval, else once when it has passed.
@Suite("Preset feed")
struct PresetFeedTests {
    @Test("a burst of changes is one list now and one when the interval has passed")
    func coalesces() {
        var feed = PresetFeed()
        let start = Moment.seconds(100)
        let got5 = feed.changed("demo", at: start)
        #expect(got5)
        for k in 1...50 {
            let now = feed.changed("demo", at: start.adding(seconds: Double(k) * 0.001))
            #expect(!now)
        }
        let got6 = feed.due(at: start.adding(seconds: 0.1))
        #expect(got6.isEmpty)
        let got7 = feed.due(at: start.adding(seconds: PresetFeed.interval))
        #expect(got7 == ["demo"])
        let got8 = feed.due(at: start.adding(seconds: 1))
        #expect(got8.isEmpty, "nothing waits once it went")
        let got9 = feed.changed("demo", at: start.adding(seconds: 1))
        #expect(got9, "quiet since: at once")
        let got10 = feed.changed("other", at: start.adding(seconds: 1))
        #expect(got10, "rooms are apart")
    }

    @Test("a large list holds the next one back longer: at most bytesPerSecond to each member")
    func largeListsWaitLonger() {
        var feed = PresetFeed()
        let start = Moment.seconds(100)
        let got11 = feed.changed("demo", at: start)
        #expect(got11)
        feed.sent("demo", at: start, bytes: 1 << 20)
        let got12 = feed.changed("demo", at: start.adding(seconds: 1))
        #expect(!got12)
        let got13 = feed.due(at: start.adding(seconds: 1))
        #expect(got13.isEmpty)
        let got14 = feed.due(at: start.adding(seconds: 2))
        #expect(got14 == ["demo"])
        #expect(PresetFeed.wait(after: 1000) == PresetFeed.interval)
    }
}
