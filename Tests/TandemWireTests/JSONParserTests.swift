import Testing
import TandemWire
import TandemTestSupport

@Suite("JSON parser")
struct JSONParserTests {
    @Test("valid documents parse to the values they spell, keeping object key order")
    func validDocuments() throws {
        #expect(try parse("null") == .null)
        #expect(try parse(" true ") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("0") == .number(0))
        #expect(try parse("-0") == .number(-0.0))
        #expect(try parse("-12.5e1") == .number(-125))
        #expect(try parse("1E+2") == .number(100))
        #expect(try parse("0.25") == .number(0.25))
        #expect(try parse("\"\"") == .string(""))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object([]))
        #expect(try parse("\t\r\n [1, \"a\", {\"b\": null}] \n") == [1, "a", ["b": nil]])
        let object = try parse(#"{"z": 1, "a": 2, "m": [true, false]}"#)
        #expect(object.objectValue?.map(\.key) == ["z", "a", "m"])
        #expect(object["a"] == 2)
    }

    @Test("a repeated key keeps both members and a lookup reads the last, as JSON.parse does")
    func duplicateKeys() throws {
        let object = try parse(#"{"seq": 1, "seq": 2}"#)
        #expect(object.objectValue?.count == 2)
        #expect(object["seq"] == 2)
    }

    @Test("escapes decode, including surrogate pairs and \\u0000")
    func escapes() throws {
        #expect(try parse(#""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{8} \u{C} \n \r \t"))
        #expect(try parse(#""\u0041\u00e9\u20AC""#) == .string("Aé€"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(try parse("\"héllo wörld 😀 日本\"") == .string("héllo wörld 😀 日本"))
    }

    @Test("numbers convert to the nearest double, on the fast path and off it")
    func numberConversion() throws {
        let cases: [(String, Double)] = [
            ("0.1", 0.1), ("0.33", 0.33), ("-0.0001", -0.0001), ("123456789012345", 123456789012345),
            ("1234567890123456789", 1234567890123456768), ("0.1234567890123456789", 0.1234567890123456789),
            ("1e-7", 1e-7), ("1e22", 1e22), ("1e23", 1e23), ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("5e-324", .leastNonzeroMagnitude), ("1e-400", 0), ("0.000000000000000000000000001", 1e-27),
            ("9007199254740993", 9007199254740992), ("0.00392156862745098", 1.0 / 255),
        ]
        for (text, expected) in cases {
            #expect(try parse(text) == .number(expected), "\(text)")
        }
    }

    @Test("invalid documents are refused with the offset of the problem",
          arguments: [
              ("", 0), ("   ", 3), ("[1,]", 3), ("{\"a\":1,}", 7), ("[1 2]", 3), ("{\"a\" 1}", 5), ("{a:1}", 1),
              ("01", 0), ("-01", 1), ("1.", 2), (".5", 0), ("+1", 0), ("1e", 2), ("1e+", 3), ("-", 1),
              ("NaN", 0), ("Infinity", 0), ("-Infinity", 1), ("nul", 0), ("True", 0),
              ("[1] x", 4), ("{} {}", 3), ("// c\n1", 0), ("/* c */ 1", 0), ("[1] // c", 4),
              ("\"abc", 0), ("\"a\\x\"", 2), ("\"\\u12\"", 5), ("\"\\ud800\"", 1), ("\"\\udc00\"", 1),
              ("\"\\ud800\\u0041\"", 1), ("\"\\ud800x\"", 1), ("'a'", 0), ("[", 1), ("{\"a\":", 5),
              ("1e400", 0), ("-1e400", 0), ("123456789e999999999999", 0),
          ] as [(String, Int)])
    func invalidDocuments(document: String, offset: Int) {
        let error = parseError(document)
        #expect(error?.offset == offset, "\(document): \(String(describing: error))")
    }

    @Test("control characters must be escaped inside strings")
    func controlCharacters() {
        for byte in UInt8(0)..<0x20 {
            let error = parseError([0x22, 0x61, byte, 0x22])
            #expect(error?.offset == 2)
            #expect(error?.reason.contains("control character") == true)
        }
        #expect(parseError([0x22, 0x7F, 0x22]) == nil) // DEL is not a control character to JSON
    }

    @Test("invalid UTF-8 is refused: stray continuation bytes, overlong forms, surrogates, past U+10FFFF, truncation",
          arguments: [
              [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
              [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80],
              [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE], [0xC3], [0xE2, 0x82], [0xC3, 0x41], [0xE2, 0x28, 0xA1],
          ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) {
        let error = parseError([0x22] + sequence + [0x22])
        #expect(error != nil)
        #expect(error?.reason.contains("UTF-8") == true || error?.reason.contains("unterminated") == true)
    }

    @Test("valid UTF-8 at the edges of each range is accepted",
          arguments: [
              [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
              [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
          ] as [[UInt8]])
    func validUTF8(sequence: [UInt8]) throws {
        let json = try JSONParser.parse([0x22] + sequence + [0x22])
        #expect(json.stringValue.map { Array($0.utf8) } == sequence)
    }

    @Test("a byte order mark and bytes outside strings are refused")
    func strayBytes() {
        #expect(parseError([0xEF, 0xBB, 0xBF, 0x31]) != nil)
        #expect(parseError([0x5B, 0xC3, 0xA9, 0x5D]) != nil)
    }

    @Test("nesting is limited to maxDepth arrays and objects")
    func depthLimit() throws {
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(parseError(ok) == nil)
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(parseError(deep)?.offset == 32)
        #expect(parseError(deep)?.reason.contains("nested deeper than 32") == true)
        #expect(parseError(#"{"a":{"b":[1]}}"#, maxDepth: 2)?.offset == 10)
        #expect(parseError(#"{"a":{"b":1}}"#, maxDepth: 2) == nil)
        // A hostile frame of nothing but brackets fails fast instead of recursing.
        let hostile = String(repeating: "[", count: 100_000)
        #expect(parseError(hostile)?.offset == 32)
    }

    @Test("a parse error describes itself with its reason and byte offset")
    func errorDescription() {
        let error = parseError("[1,]")
        #expect(error?.description == "unexpected ']', expected a value at byte 3")
    }

    @Test("input that is not an Array parses the same")
    func nonContiguousInput() throws {
        let bytes = Array(#"{"a":[1,2.5,"x"]}"#.utf8)
        let json = try JSONParser.parse(bytes.lazy.map { $0 })
        #expect(json == ["a": [1, 2.5, "x"]])
    }

    @Test("parse(write(x)) == x for many values, including unicode, escapes and awkward numbers")
    func roundTrip() throws {
        let strings = ["", "plain", "quote \" and backslash \\", "slash / stays", "tab\tnewline\nreturn\r",
                       "\u{0}\u{1}\u{1F}\u{7F}", "é ü ß 日本語 😀 👩‍👩‍👧", "\u{2028}\u{2029}", "#336699", "\u{FFFF}\u{10FFFF}"]
        let numbers: [Double] = [0, -0.0, 1, -1, 0.5, 0.33, 1.0 / 3, 2.0 / 3, 1e-7, 1e-5, 1e21, 1e22, 1e300, -1e300,
                                 9007199254740992, 9007199254740991, -9007199254740991, 128.0 / 255, 1.0 / 255,
                                 .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude, .pi, 67, 170]
        var values: [JSON] = [.null, .bool(true), .bool(false), [], [:], [[[]]], ["": ""]]
        values += strings.map(JSON.string)
        values += numbers.map(JSON.number)
        values.append(.array(values))
        values.append(.object(strings.enumerated().map { JSONMember($0.element, .number(numbers[$0.offset])) }))
        var rng = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let x = Double(bitPattern: rng.next())
            if x.isFinite { values.append(.number(x)) }
        }
        for value in values {
            let back = try JSONParser.parse(value.bytes)
            #expect(back == value, "\(value)")
            if case let .number(x) = value, case let .number(y) = back {
                #expect(x.bitPattern == y.bitPattern || (x == 0 && y == 0))
            }
        }
    }
}
