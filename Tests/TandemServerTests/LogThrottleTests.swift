import TandemCore
import Testing
@testable import TandemServer

@Suite("Log throttle")
struct LogThrottleTests {
    @Test("writes a burst of lines of a kind per interval, then counts the rest and reports them with the next line")
    func burstThenCount() {
        for burst in 1...5 {
            var throttle = LogThrottle(burst: burst, interval: 10)
            let start = Moment.seconds(100)
            let verdicts = (0..<(burst + 7)).map { _ in throttle.admit("accept", at: start) }
            #expect(verdicts.prefix(burst).allSatisfy { $0 == .write(suppressed: 0) })
            #expect(verdicts.dropFirst(burst).allSatisfy { $0 == .suppress })
            #expect(throttle.suppressedTotal == 7)
            let after = throttle.admit("accept", at: .seconds(110))
            #expect(after == .write(suppressed: 7))
        }
    }

    @Test("kinds are limited separately")
    func separateKinds() {
        var throttle = LogThrottle(burst: 1, interval: 10)
        let verdicts = [throttle.admit("a", at: .zero), throttle.admit("a", at: .zero), throttle.admit("b", at: .zero)]
        #expect(verdicts == [.write(suppressed: 0), .suppress, .write(suppressed: 0)])
    }
}
