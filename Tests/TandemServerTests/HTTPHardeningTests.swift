import Testing
import TandemCore
@testable import TandemServer

/// Pure parts of the HTTP hardening: CSV cells, ETags, security headers, the log throttle.
@Suite("HTTP hardening")
struct HTTPHardeningTests {
    @Test("CSV cells starting with = + - @ tab or CR get a quote in front, so spreadsheets show them as text")
    func csvFormulaPrefix() {
        #expect(csvField("=HYPERLINK(\"http://evil.example\",\"x\")") == "\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\"")
        #expect(csvField("+1") == "'+1")
        #expect(csvField("-2") == "'-2")
        #expect(csvField("@SUM(A1)") == "'@SUM(A1)")
        #expect(csvField("\tx") == "'\tx")
        #expect(csvField("\rx") == "\"'\rx\"")
        #expect(csvField("Ann") == "Ann")
        #expect(csvField("a=b") == "a=b")
        #expect(csvField("") == "")
        #expect(csvField("{\"value\":-1}") == "\"{\"\"value\"\":-1}\"")
    }

    @Test("If-None-Match matches the ETag itself, its weak form, one of a list, or *")
    func etagMatching() {
        let tag = "\"c63-18ecdf4d\""
        #expect(StaticFile.matches(tag, tag))
        #expect(StaticFile.matches("W/\(tag)", tag))
        #expect(StaticFile.matches("\"other\", \(tag)", tag))
        #expect(StaticFile.matches("*", tag))
        #expect(!StaticFile.matches("\"other\"", tag))
        #expect(!StaticFile.matches("c63-18ecdf4d", tag))
    }

    @Test("the security headers carry a strict CSP naming the page's own WebSocket origin, nosniff and a referrer policy")
    func securityHeaders() {
        let headers = Dictionary(uniqueKeysWithValues: ResponseHeaders.security(host: "localhost:8080"))
        let csp = headers["Content-Security-Policy"] ?? ""
        for part in ["default-src 'self'", "frame-ancestors 'self'", "object-src 'none'", "base-uri 'none'",
                     "connect-src 'self' ws://localhost:8080 wss://localhost:8080"] {
            #expect(csp.contains(part), "\(part)")
        }
        #expect(headers["X-Content-Type-Options"] == "nosniff")
        #expect(headers["Referrer-Policy"] == "same-origin")
        let odd = Dictionary(uniqueKeysWithValues: ResponseHeaders.security(host: "x; script-src *"))
        #expect(odd["Content-Security-Policy"]?.contains("script-src *") == false, "a Host that is not a host name is left out")
    }
}
