import Testing
import TandemCore
@testable import TandemServer

@Suite("Memory trim policy")
struct MemoryTrimTests {
    private func at(_ seconds: Double) -> Moment { .seconds(100 + seconds) }

    /// The ticks at which `trim` said to trim, of `ticks` (open count, seconds).
    private func trims(_ trim: inout MemoryTrim, _ ticks: [(Int, Double)]) -> [Bool] {
        ticks.map { trim.tick(open: $0.0, at: at($0.1)) }
    }

    @Test("trims once a burst of opens has settled for a second, and only once")
    func trimsAfterABurstSettles() {
        var trim = MemoryTrim()
        for _ in 0..<MemoryTrim.churn { trim.note() }
        // The count just moved; not quiet long enough; quiet; nothing churned since.
        #expect(trims(&trim, [(256, 0), (256, 0.5), (256, 1.0), (256, 5)]) == [false, false, true, false])
    }

    @Test("waits while connections keep coming")
    func waitsWhileBusy() {
        var trim = MemoryTrim()
        for _ in 0..<1000 { trim.note() }
        let busy = (0..<20).map { (100 + $0, Double($0) * 0.25) }
        #expect(trims(&trim, busy) == Array(repeating: false, count: 20))
        #expect(trims(&trim, [(119, 6)]) == [true])
    }

    @Test("a trickle below the churn threshold never trims")
    func trickleDoesNotTrim() {
        var trim = MemoryTrim()
        for _ in 0..<(MemoryTrim.churn - 1) { trim.note() }
        #expect(trims(&trim, [(0, 10), (0, 20)]) == [false, false])
        trim.note()
        #expect(trims(&trim, [(0, 30)]) == [true])
    }
}
