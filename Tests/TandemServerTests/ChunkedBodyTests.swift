import Testing
@testable import TandemServer

/// The chunked request-body decoder, fed whole and byte by byte.
@Suite("Chunked request bodies")
struct ChunkedBodyTests {
    private func feed(_ text: String, limit: Int = 1000, split: Int? = nil) -> ChunkedBody.Outcome {
        var decoder = ChunkedBody(limit: limit)
        let bytes = Array(text.utf8)
        let size = split ?? max(1, bytes.count)
        var outcome = ChunkedBody.Outcome.needMore
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i ..< min(bytes.count, i + size)])
            outcome = piece.withUnsafeBytes { decoder.feed($0) }
            if outcome != .needMore { return outcome }
            i += size
        }
        return outcome
    }

    @Test("chunks are joined, extensions skipped and trailers dropped, whatever the pieces lws hands over")
    func decodes() {
        let text = "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n"
        for split in [1, 2, 3, 7, 100] {
            #expect(feed(text, split: split) == .complete(Array("hello, world".utf8)), "pieces of \(split)")
        }
        #expect(feed("A\r\n0123456789\r\n0\r\n\r\n") == .complete(Array("0123456789".utf8)))
        #expect(feed("0\r\n\r\n") == .complete([]))
    }

    @Test("an unfinished body needs more")
    func unfinished() {
        #expect(feed("5\r\nhel") == .needMore)
        #expect(feed("5\r\nhello\r\n0\r\n") == .needMore)
    }

    @Test("a body past the limit is too large, before its data is read")
    func tooLarge() {
        #expect(feed("10\r\n", limit: 15) == .tooLarge)
        #expect(feed("8\r\n12345678\r\n8\r\n", limit: 15) == .tooLarge)
        #expect(feed("f\r\n123456789012345\r\n0\r\n\r\n", limit: 15) == .complete(Array("123456789012345".utf8)))
    }

    @Test("broken framing is malformed: bad sizes, missing CRLFs, overlong lines, bytes after the end")
    func malformed() {
        for text in ["x\r\n", "\r\n", "5\nhello", "5\r\nhelloX\r\n", "123456789\r\n", "5\r\nhello\r\n0\r\n\r\nGET", String(repeating: "1", count: 2000)] {
            if case .malformed = feed(text) { continue }
            Issue.record("\(text.prefix(20).debugDescription) was not refused: \(feed(text))")
        }
    }
}
