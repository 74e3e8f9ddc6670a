import TandemOSCLink
import XCTest

final class OSCTargetTests: XCTestCase {
    func testGoodURLs() {
        let cases: [(String, String, Int, String)] = [
            ("udp://127.0.0.1:9000", "127.0.0.1", 9000, "udp://127.0.0.1:9000"),
            ("osc.udp://localhost:57120/", "localhost", 57120, "udp://localhost:57120"),
            ("osc.udp://localhost:57120", "localhost", 57120, "udp://localhost:57120"),
            ("udp://[::1]:1", "::1", 1, "udp://[::1]:1"),
            ("osc.udp://[fd00::7]:65535/", "fd00::7", 65535, "udp://[fd00::7]:65535"),
            ("udp://synth-2.studio.example:7000", "synth-2.studio.example", 7000, "udp://synth-2.studio.example:7000"),
            ("udp://TD:7000", "TD", 7000, "udp://TD:7000"),
        ]
        for (url, host, port, description) in cases {
            let target = OSCTarget(url: url)
            XCTAssertEqual(target?.host, host, url)
            XCTAssertEqual(target?.port, port, url)
            XCTAssertEqual(target?.description, description, url)
        }
    }

    func testBadURLs() {
        for url in [
            "", "udp://", "127.0.0.1:9000", "tcp://127.0.0.1:9000", "osc.tcp://h:9000/", "UDP://h:9000",
            "udp://h", "udp://h:", "udp://:9000", "udp://h:0", "udp://h:65536", "udp://h:123456", "udp://h:-1",
            "udp://h:+90", "udp://h:90x", "udp://h:9000/", "udp://h:9000/path", "osc.udp://h:9000//",
            "udp://::1:9000", "udp://[::1:9000", "udp://[::1]]:9000", "udp://[nope]:9000", "udp://[1.2.3.4]:9000",
            "udp://a b:9000", "udp://a..b:9000", "udp://.a:9000", "udp://a_b:9000", "udp://user@h:9000",
            "udp://é.example:9000", "udp://" + String(repeating: "a", count: 64) + ":9000",
        ] {
            XCTAssertNil(OSCTarget(url: url), url)
        }
    }

    func testHashable() {
        XCTAssertEqual(OSCTarget(url: "udp://h:1"), OSCTarget(url: "osc.udp://h:1/"))
        XCTAssertNotEqual(OSCTarget(url: "udp://h:1"), OSCTarget(url: "udp://h:2"))
    }
}
