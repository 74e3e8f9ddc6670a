import Testing
@testable import TandemServer

@Suite("Close codes a client may send")
struct CloseCodeRuleTests {
    @Test("1000-1003, 1007-1011 and 3000-4999, and nothing else")
    func everyCode() {
        for code in 0...UInt16.max {
            let expected = (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code)
            if Server.mayBeSent(closeCode: code) != expected {
                Issue.record("close code \(code)")
            }
        }
    }
}
