import Testing
import TandemCore
import TandemWire

@Suite("The restore message")
struct RestoreMessageTests {
    @Test("a restore with a seq and a whole rev ≥ 0 decodes to .restore, other keys ignored")
    func decodes() {
        #expect(decode(#"{"type":"restore","seq":4,"rev":120}"#) == .restore(seq: 4, revision: 120))
        #expect(decode(#"{"rev":0,"x":[1],"seq":9,"type":"restore"}"#) == .restore(seq: 9, revision: 0))
        #expect(decode(#"{"type":"restore","seq":2,"rev":9007199254740992}"#) == .restore(seq: 2, revision: 9_007_199_254_740_992))
    }

    @Test("a restore without rev is bad_message with its seq", arguments: [#"{"type":"restore","seq":4}"#, #"{"type":"restore","seq":4,"rev":null}"#])
    func needsRev(frame: String) {
        #expect(decode(frame) == .refused(seq: 4, code: .badMessage, message: "a restore needs rev, the revision to go back to"))
    }

    @Test("a rev that is not a whole number ≥ 0 is bad_value with its seq",
          arguments: [#""12""#, "-1", "1.5", "true", "[3]", "9007199254740994", "1e300"])
    func badRev(rev: String) {
        #expect(decode(#"{"type":"restore","seq":5,"rev":"# + rev + "}")
                == .refused(seq: 5, code: .badValue, message: "rev must be a revision: a whole number ≥ 0"))
    }

    @Test("a restore without a usable seq is bad_message without seq")
    func needsSeq() {
        #expect(decode(#"{"type":"restore","seq":0,"rev":3}"#) == .refused(seq: nil, code: .badMessage, message: "seq must be a whole number from 1 to 2^53"))
    }

    @Test("the HTTP body {\"rev\": R} decodes by the same rules")
    func body() {
        #expect(MessageDecoder.decodeRestoreBody(Array(#"{"rev":7}"#.utf8), seq: 1) == .restore(seq: 1, revision: 7))
        #expect(MessageDecoder.decodeRestoreBody(Array(#"{"rev":-7}"#.utf8), seq: 1)
                == .refused(seq: 1, code: .badValue, message: "rev must be a revision: a whole number ≥ 0"))
        #expect(MessageDecoder.decodeRestoreBody(Array("{}".utf8), seq: 1)
                == .refused(seq: 1, code: .badMessage, message: "a restore needs rev, the revision to go back to"))
        #expect(MessageDecoder.decodeRestoreBody(Array("[1]".utf8), seq: 1) == .refused(seq: 1, code: .badMessage, message: "expected a JSON object"))
        guard case .refused(1, .badMessage, _) = MessageDecoder.decodeRestoreBody(Array("rev=7".utf8), seq: 1) else {
            Issue.record("not JSON is bad_message")
            return
        }
    }

    @Test("a revision in a URL path: digits only, up to 2^53", arguments: [
        ("0", 0), ("42", 42), ("9007199254740992", 9_007_199_254_740_992),
        ("", nil), ("-1", nil), ("+1", nil), ("1.0", nil), (" 1", nil), ("abc", nil), ("9007199254740993", nil), ("99999999999999999999", nil),
    ] as [(String, Int?)])
    func pathRevision(text: String, revision: Int?) {
        #expect(MessageDecoder.revision(inPath: text) == revision)
    }
}
