import Foundation
import Testing
@testable import TandemServer

@Suite("Log format: text lines and JSON lines")
struct LogFormatTests {
    @Test("a text line is LEVEL message")
    func text() {
        #expect(LogFormat.text.line(label: "warn", message: "slow consumer", unixMillis: 0) == "warn slow consumer\n")
    }

    @Test("a JSON line is one object with time, level and message, in that order, and one newline")
    func json() throws {
        // 2026-12-07T09:30:00.123Z
        let line = LogFormat.json.line(label: "info", message: "open c1 from 127.0.0.1", unixMillis: 1_796_635_800_123)
        #expect(line == "{\"time\":\"2026-12-07T09:30:00.123Z\",\"level\":\"info\",\"message\":\"open c1 from 127.0.0.1\"}\n")
    }

    @Test("quotes, backslashes and escaped control bytes survive a JSON parser unchanged")
    func escaping() throws {
        for raw in ["say \"hi\"", "C:\\path\\", "GET /\u{1B}[31mred\n\u{7}", "name\u{202E}gpj.exe", "Zoë — ½ ✓ 音", ""] {
            let message = Log.escaped(raw)
            let line = LogFormat.json.line(label: "error", message: message, unixMillis: 42)
            #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object == ["time": "1970-01-01T00:00:00.042Z", "level": "error", "message": message])
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        }
    }
}
