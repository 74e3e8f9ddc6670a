import TandemCore
import Testing
@testable import TandemServer

@Suite("HTTP budget and OSC rate tables")
struct HTTPBudgetTests {
    @Test("a bucket serves its burst, then refuses with the seconds to wait, and refills at its rate; keys are apart")
    func burstThenRetryAfter() {
        var budget = HTTPBudget(perSecond: 5, burst: 10)
        let start = Moment.seconds(100)
        #expect((0..<10).allSatisfy { _ in budget.take("sub alice", cost: .write, at: start) == nil })
        let over = budget.take("sub alice", cost: .write, at: start)
        #expect(over == 1)
        let other = budget.take("sub bob", cost: .write, at: start)
        #expect(other == nil)
        let back = budget.take("sub alice", cost: .write, at: .seconds(100.2)) // one token back
        #expect(back == nil)
        // A read costs more; one dearer than the bucket takes all of it.
        let moment = budget.take("sub carol", cost: .moment, at: start)
        #expect(moment == nil)
        let read = budget.take("sub carol", cost: .read, at: start)
        #expect(read == 2)
    }

    @Test("the table of buckets stays bounded: idle ones go first, then the longest unused")
    func bounded() {
        var budget = HTTPBudget(perSecond: 1, burst: 2, maxKeys: 100)
        for k in 0..<10_000 { _ = budget.take("peer \(k)", cost: .write, at: .seconds(Double(k) / 1000)) }
        #expect(budget.count <= 100)
        var off = HTTPBudget(perSecond: 0, burst: 0)
        #expect((0..<1000).allSatisfy { _ in off.take("x", cost: .moment, at: .zero) == nil })
    }

    @Test("what is budgeted: writes and the costly reads, not a room's state or list")
    func costs() {
        #expect(HTTPBudget.cost(.put, ["rooms", "demo", "controls", "gain"]) == .write)
        #expect(HTTPBudget.cost(.post, ["rooms", "demo", "restore"]) == .write)
        #expect(HTTPBudget.cost(.delete, ["rooms", "demo", "presets", "a"]) == .write)
        #expect(HTTPBudget.cost(.get, ["rooms", "demo", "timeline"]) == .read)
        #expect(HTTPBudget.cost(.get, ["rooms", "demo", "timeline", "7"]) == .moment)
        #expect(HTTPBudget.cost(.get, ["rooms", "demo", "history.csv"]) == .read)
        #expect(HTTPBudget.cost(.get, ["rooms", "demo", "presets"]) == .read)
        #expect(HTTPBudget.cost(.get, ["rooms", "demo"]) == nil)
        #expect(HTTPBudget.cost(.get, ["rooms"]) == nil)
        #expect(HTTPBudget.cost(.post, ["rooms"]) == nil) // the room admin API: admin only, and --max-rooms
        #expect(HTTPBudget.cost(.delete, ["rooms", "demo"]) == nil)
        #expect(HTTPBudget.cost(.get, ["cluster"]) == nil)
    }

    @Test("a rate table refuses past its burst, refills, and stays bounded")
    func rateTable() {
        var table = RateTable(perSecond: 2, burst: 3, maxKeys: 50)
        #expect((0..<3).allSatisfy { _ in table.take("127.0.0.1", at: .zero) })
        let fourth = table.take("127.0.0.1", at: .zero)
        #expect(!fourth)
        let refilled = table.take("127.0.0.1", at: .seconds(0.5))
        #expect(refilled)
        for k in 0..<5000 { _ = table.take("10.0.\(k / 256).\(k % 256)", at: .seconds(Double(k) / 100)) }
        #expect(table.count <= 50)
    }
}
