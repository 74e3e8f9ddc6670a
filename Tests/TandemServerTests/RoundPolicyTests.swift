import Testing
import TandemCore
@testable import TandemServer

/// When a room's next fan-out round is due for a change (Server+FanOut.swift, `FanOut`).
@Suite("Fan-out round policy")
struct RoundPolicyTests {
    private let start = Moment.seconds(100)

    private func host(afterRoundCosting cost: Double) -> RoomHost {
        let host = RoomHost()
        host.noteRound(startedAt: start, cost: cost)
        return host
    }

    private func ms(_ due: Moment) -> Double { (due.seconds(since: start) * 1e6).rounded() / 1e3 }

    @Test("a change after a quiet period starts a round at once")
    func quiet() {
        let host = host(afterRoundCosting: 0.0005)
        let now = start.adding(seconds: 0.020)
        #expect(host.startsAtOnce(at: now))
        #expect(host.roundDue(forChangeAt: now) == now)
    }

    @Test("a change soon after a cheap round waits its deadline, not the rest of the period")
    func deadlineBeforePeriod() {
        let host = host(afterRoundCosting: 0.0005) // 5 × 0.5 ms is under the 8 ms deadline
        #expect(ms(host.roundDue(forChangeAt: start.adding(seconds: 0.001))) == 9)
        // Later in the period, the period's end comes first.
        #expect(ms(host.roundDue(forChangeAt: start.adding(seconds: 0.006))) == 12)
    }

    @Test("a costlier round lengthens the deadline, at most to the period")
    func costlyRoundsFoldMore() {
        #expect(ms(host(afterRoundCosting: 0.002).roundDue(forChangeAt: start.adding(seconds: 0.001))) == 11)
        #expect(ms(host(afterRoundCosting: 0.004).roundDue(forChangeAt: start.adding(seconds: 0.001))) == 12)
    }

    @Test("a huge room's round waits out its share of the loop, whatever the deadline")
    func costShare() {
        let host = host(afterRoundCosting: 0.010) // twice 10 ms
        #expect(!host.mayStartRound(at: start.adding(seconds: 0.015)))
        #expect(host.mayStartRound(at: start.adding(seconds: 0.020)))
        #expect(ms(host.roundDue(forChangeAt: start.adding(seconds: 0.001))) == 20)
        #expect(ms(host.roundDue(forChangeAt: start.adding(seconds: 0.025))) == 25)
    }
}
