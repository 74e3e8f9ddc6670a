import Testing
@testable import TandemBench

@Suite struct BenchTokenTests {
    @Test func noTokenLeavesThePath() {
        #expect(BenchToken.path("/rooms/demo", token: nil) == "/rooms/demo")
    }

    @Test func aTokenStartsTheQuery() {
        #expect(BenchToken.path("/rooms/demo", token: "aaa.bbb.ccc") == "/rooms/demo?token=aaa.bbb.ccc")
    }

    @Test func aTokenJoinsAnExistingQuery() {
        #expect(BenchToken.path("/rooms/demo?name=x", token: "a.b.c") == "/rooms/demo?name=x&token=a.b.c")
        #expect(BenchToken.path("/rooms/demo?", token: "a.b.c") == "/rooms/demo?token=a.b.c")
        #expect(BenchToken.path("/rooms/demo?name=x&", token: "a.b.c") == "/rooms/demo?name=x&token=a.b.c")
    }

    @Test func reservedCharactersAreEncoded() {
        #expect(BenchToken.path("/rooms/r", token: "a+b/c=&d#e f") == "/rooms/r?token=a%2Bb%2Fc%3D%26d%23e%20f")
        #expect(BenchToken.percentEncoded("é") == "%C3%A9")
        #expect(BenchToken.percentEncoded("Az09-._~") == "Az09-._~")
    }

    @Test func refusalsAreTheAuthCodesOnly() {
        #expect(BenchToken.isRefusal(closeCode: 4401) && BenchToken.isRefusal(closeCode: 4403))
        #expect(!BenchToken.isRefusal(closeCode: 4404) && !BenchToken.isRefusal(closeCode: 1000))
        #expect(BenchToken.isRefusal(status: 401) && BenchToken.isRefusal(status: 403))
        #expect(!BenchToken.isRefusal(status: 404) && !BenchToken.isRefusal(status: 200))
    }

    @Test func theRefusalNamesCodeAndReason() {
        #expect(BenchToken.refusal("4401", reason: "token expired") == "the server refused the token: 4401 token expired")
        #expect(BenchToken.refusal("HTTP 403", reason: " \n") == "the server refused the token: HTTP 403")
    }
}
