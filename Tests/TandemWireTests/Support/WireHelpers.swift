import TandemCore
import TandemWire

/// Parses `text` as UTF-8 JSON.
func parse(_ text: String, maxDepth: Int = 32) throws(JSONParseError) -> JSON {
    try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// The parse error for `bytes`, or nil when they parse.
func parseError(_ bytes: [UInt8], maxDepth: Int = 32) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

func parseError(_ text: String, maxDepth: Int = 32) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

/// Decodes a client frame given as text.
func decode(_ text: String) -> Inbound {
    MessageDecoder.decode(Array(text.utf8))
}

/// Bytes as text, for comparing encoder output with expected JSON.
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// A number written alone.
func written(_ x: Double) -> String {
    var w = JSONWriter()
    w.append(number: x)
    return text(w.bytes)
}

/// The demo schema written as a room file, the way a person would write it.
let demoRoomFile = """
{
  "id": "demo",
  "title": "Demo",
  "controls": [
    {"id": "size", "type": "snap", "label": "Circle size", "values": [20, 40, 60, 80, 100], "layout": "ordinal", "unit": "pt", "state": {"index": 2}},
    {"id": "blanks", "type": "range", "label": "Blank cells", "scale": [0, 9], "operable": [0, 3], "minGap": 1, "state": {"lower": 0, "upper": 1}},
    {"id": "color", "type": "color", "label": "Colour", "step": 0.00392156862745098, "state": {"hex": "#336699"}},
    {"id": "gain", "type": "slider", "label": "Gain", "min": 0, "max": 1, "step": 0.01, "state": {"value": 0.5}},
    {"id": "bpm", "type": "gauge", "label": "BPM", "min": 0, "max": 170, "state": {"value": 67}}
  ]
}
"""
