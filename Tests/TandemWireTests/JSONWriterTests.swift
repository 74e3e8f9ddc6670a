import Testing
import TandemWire

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("integral doubles below 2^53 are written as integers; -0.0 as 0",
          arguments: [(0.0, "0"), (-0.0, "0"), (1, "1"), (-3, "-3"), (2, "2"), (170, "170"),
                      (9007199254740991, "9007199254740991"), (-9007199254740991, "-9007199254740991"),
                      (1e15, "1000000000000000")] as [(Double, String)])
    func integers(value: Double, expected: String) {
        #expect(written(value) == expected)
    }

    @Test("other finite doubles use the shortest round-trip form, which is valid JSON",
          arguments: [(0.33, "0.33"), (1.0 / 3, "0.3333333333333333"), (1e-7, "1e-07"), (1e-5, "1e-05"),
                      (9007199254740992, "9007199254740992.0"), (1e16, "1e+16"), (1e300, "1e+300"), (-1e300, "-1e+300"),
                      (128.0 / 255, "0.5019607843137255"), (0.5, "0.5"), (-0.25, "-0.25"),
                      (.leastNonzeroMagnitude, "5e-324")] as [(Double, String)])
    func fractions(value: Double, expected: String) throws {
        #expect(written(value) == expected)
        #expect(try parse(expected) == .number(value))
    }

    @Test("NaN and infinity are never written as numbers: null keeps the document valid")
    func nonFinite() {
        #expect(written(.nan) == "null")
        #expect(written(.infinity) == "null")
        #expect(written(-.infinity) == "null")
    }

    @Test("Int extremes are written exactly")
    func intExtremes() {
        var w = JSONWriter()
        w.append(int: Int.min)
        w.append(byte: 0x2C)
        w.append(int: Int.max)
        w.append(byte: 0x2C)
        w.append(int: 0)
        #expect(text(w.bytes) == "\(Int.min),\(Int.max),0")
    }

    @Test("strings escape quote, backslash and control characters as \\u00XX, and nothing else")
    func stringEscaping() {
        var w = JSONWriter()
        w.append(string: "a\"b\\c/d\n\t\u{0}\u{1F}\u{7F}é😀")
        #expect(text(w.bytes) == #""a\"b\\c/d\u000a\u0009\u0000\u001f"# + "\u{7F}é😀\"")
    }

    @Test("values are written compactly with object keys in order")
    func compactValues() {
        let value: JSON = ["b": [1, 2.5, nil, true], "a": ["x": "y"], "": false]
        #expect(text(value.bytes) == #"{"b":[1,2.5,null,true],"a":{"x":"y"},"":false}"#)
    }
}
