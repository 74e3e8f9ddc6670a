import TandemCore
import TandemOSC
import Testing
@testable import TandemServer

@Suite("OSC previews: at most one update per thumb per interval")
struct PreviewConflatorTests {
    static let gain = PreviewConflator.Key(room: "demo", control: 3, thumb: .value)
    static let lower = PreviewConflator.Key(room: "demo", control: 1, thumb: .lower)
    static let upper = PreviewConflator.Key(room: "demo", control: 1, thumb: .upper)

    static func message(_ v: Float) -> [OSCMessage] { [OSCMessage("/demo/gain", [.float(v)])] }

    @Test("the first preview goes at once; sooner ones wait and the latest wins when the window ends")
    func latestWins() {
        var c = PreviewConflator(interval: 0.1)
        #expect(c.offer(Self.gain, Self.message(0.1), at: .seconds(10)) == Self.message(0.1))
        #expect(c.offer(Self.gain, Self.message(0.2), at: .seconds(10.02)) == nil)
        #expect(c.offer(Self.gain, Self.message(0.3), at: .seconds(10.05)) == nil)
        #expect(abs(c.nextDue?.seconds(since: .seconds(10.1)) ?? 1) < 1e-6)
        #expect(c.due(at: .seconds(10.09)).isEmpty)
        #expect(c.due(at: .seconds(10.1)) == [Self.message(0.3)])
        #expect(c.nextDue == nil)
        // The window starts again from that send.
        #expect(c.offer(Self.gain, Self.message(0.4), at: .seconds(10.15)) == nil)
        #expect(c.offer(Self.gain, Self.message(0.5), at: .seconds(10.2)) == Self.message(0.5))
    }

    @Test("a steady drag faster than the interval goes out at the interval's rate")
    func rate() {
        var c = PreviewConflator(interval: 1.0 / 60)
        var sent: [Moment] = []
        var move = 0.0
        // Moves 250 times a second; the server's timer fires when a held-back preview is due.
        while move < 1 {
            if let due = c.nextDue, due < .seconds(move) {
                for _ in c.due(at: due) { sent.append(due) }
                continue
            }
            let now = Moment.seconds(move)
            if c.offer(Self.gain, Self.message(Float(move)), at: now) != nil { sent.append(now) }
            move += 0.004
        }
        #expect(sent.count <= 61 && sent.count >= 55)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.seconds(since: $0) >= 1.0 / 60 - 1e-9 })
    }

    @Test("thumbs are conflated apart")
    func thumbsApart() {
        var c = PreviewConflator(interval: 0.1)
        #expect(c.offer(Self.lower, Self.message(1), at: .seconds(1)) != nil)
        #expect(c.offer(Self.upper, Self.message(2), at: .seconds(1.01)) != nil)
        #expect(c.offer(Self.lower, Self.message(3), at: .seconds(1.02)) == nil)
        #expect(c.due(at: .seconds(1.1)) == [Self.message(3)])
    }

    @Test("an ended drag, a commit or a forgotten room drop what waits")
    func finishing() {
        var c = PreviewConflator(interval: 0.1)
        _ = c.offer(Self.gain, Self.message(1), at: .seconds(1))
        _ = c.offer(Self.gain, Self.message(2), at: .seconds(1.01))
        c.finish(Self.gain)
        #expect(c.due(at: .seconds(2)).isEmpty)

        _ = c.offer(Self.lower, Self.message(1), at: .seconds(3))
        _ = c.offer(Self.lower, Self.message(2), at: .seconds(3.01))
        _ = c.offer(Self.upper, Self.message(3), at: .seconds(3))
        _ = c.offer(Self.upper, Self.message(4), at: .seconds(3.01))
        c.committed(room: "demo", control: 1)
        #expect(c.due(at: .seconds(4)).isEmpty)

        _ = c.offer(Self.gain, Self.message(1), at: .seconds(5))
        _ = c.offer(Self.gain, Self.message(2), at: .seconds(5.01))
        c.forget(room: "demo")
        #expect(c.nextDue == nil)
        #expect(c.offer(Self.gain, Self.message(3), at: .seconds(5.02)) == Self.message(3))
    }
}
