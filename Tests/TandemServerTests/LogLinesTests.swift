import TandemCore
import Testing
@testable import TandemServer

@Suite("Log lines: escaping, connection budgets, tooling paths")
struct LogLinesTests {
    @Test("control bytes, C1 and bidi controls are written as visible escapes; other text is kept")
    func escaping() {
        #expect(Log.escaped("GET /\u{1B}[31mred") == "GET /\\x1b[31mred")
        #expect(Log.escaped("a\nb\r\tc\u{0}\u{7F}") == "a\\x0ab\\x0d\\x09c\\x00\\x7f")
        #expect(Log.escaped("x\u{9B}y\u{85}") == "x\\u{9b}y\\u{85}")
        #expect(Log.escaped("name\u{202E}gpj.exe\u{2066}\u{2029}") == "name\\u{202e}gpj.exe\\u{2066}\\u{2029}")
        for kept in ["plain ascii", "Zoë — ½ café ✓ 音", "back\\slash", "€ and ¢ (C2 A2)", "‘quotes’ (E2 80 98)"] {
            #expect(Log.escaped(kept) == kept)
        }
    }

    @Test("a kind given its own burst gets it; the throttle's burst stays for the others")
    func burstOverride() {
        var throttle = LogThrottle(burst: 5, interval: 10)
        let opens = (0..<60).map { _ in throttle.admit("open", burst: LogThrottle.connectionBurst, at: .seconds(1)) }
        #expect(opens.filter { $0 == .write(suppressed: 0) }.count == LogThrottle.connectionBurst)
        #expect(opens.filter { $0 == .suppress }.count == 60 - LogThrottle.connectionBurst)
        let rejects = (0..<10).map { _ in throttle.admit("reject-busy", at: .seconds(1)) }
        #expect(rejects.filter { $0 == .write(suppressed: 0) }.count == 5)
        #expect(throttle.admit("open", burst: LogThrottle.connectionBurst, at: .seconds(11)) == .write(suppressed: 10))
    }

    @Test("the browser's tests, node_modules, package.json and dotfiles are tooling, the site is not")
    func tooling() {
        for path in ["/test/math.test.mjs", "/test/", "/js/package.json", "/node_modules/x/index.js", "/js/app.test.js",
                     "/a.spec.mjs", "/.env", "/js/.cache/x"] {
            #expect(StaticFiles.isTooling(path), "\(path)")
        }
        for path in ["/", "/index.html", "/js/app.js", "/css/tandem.css", "/js/controls/slider.js", "/testing/x.js", "/js/test.js"] {
            #expect(!StaticFiles.isTooling(path), "\(path)")
        }
    }
}
