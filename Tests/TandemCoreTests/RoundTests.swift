import Testing
@testable import TandemCore
import TandemTestSupport

/// Fan-out rounds (Room+Rounds.swift): a member in step gets the round's
/// shared update with its own ack, and that frame is exactly the one
/// `nextFrame(for:)` would have given it.
@Suite("Fan-out rounds")
struct RoundTests {
    private func open(_ d: inout RoomDriver) throws -> RoundUpdate {
        let round = d.room.openRound()
        return try #require(round)
    }

    private func update(_ frame: Frame?) -> Update? {
        if case let .update(u) = frame { u } else { nil }
    }

    @Test("after a round everyone is in step: the next round's shared update is each receiver's frame")
    func receiversShareTheRound() throws {
        var d = RoomDriver()
        for c in ["a", "b", "c"] { d.join(ClientID(c)) }
        let first = try open(&d)
        for c in ["a", "b", "c"] where d.room.share(of: first, for: ClientID(c)) == .own { _ = d.drain(ClientID(c)) }
        _ = d.begin("a", "gain", nil)
        _ = d.drain("a") // the sender's ack: a frame of its own
        let round = try open(&d)
        #expect(round.update.gestures.map(\.entry.phase) == [.begin])
        var alone = d.room
        let expected = update(alone.nextFrame(for: "b"))
        let share = d.room.share(of: round, for: "b")
        guard case let .shared(ack, present) = share else {
            Issue.record("b is in step: \(share)")
            return
        }
        var got = round.update
        got.ack = ack
        got.present = present
        #expect(got == expected)
        #expect(d.room.share(of: round, for: "a") == .nothing, "a's own frame already carried the begin")
        #expect(!d.room.hasPendingFrame(for: "b"))
    }

    @Test("a member with an ack, a reject or its own join waiting is out of step")
    func ownFrames() throws {
        var d = RoomDriver()
        d.join("a"); d.join("b")
        let first = try open(&d)
        for c in ["a", "b"] where d.room.share(of: first, for: ClientID(c)) == .own { _ = d.drain(ClientID(c)) }
        _ = d.step("a", "size", by: 1)          // a: ack waiting
        _ = d.set("b", "nope", .number(1))      // b: a reject waiting
        d.join("c")                             // c: joined after the last round
        let round = try open(&d)
        #expect(d.room.share(of: round, for: "a") == .own)
        #expect(d.room.share(of: round, for: "b") == .own)
        #expect(d.room.share(of: round, for: "c") == .nothing, "its welcome carried everything")
        #expect(d.room.share(of: round, for: "zz") == .nothing)
    }

    @Test("a round while frames are withheld for storage is not opened")
    func withheld() {
        var d = RoomDriver()
        d.join("a")
        d.room.withholdFrames()
        #expect(d.room.openRound() == nil)
        d.room.releaseFrames()
        #expect(d.room.openRound() != nil)
    }

    @Test("shared frames equal nextFrame's, over 2,000 random turns of joins, leaves, drags, sets and skipped members",
          arguments: [1, 2, 3] as [UInt64])
    func sharedEqualsOwn(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9, presence: 4))
        var present: [ClientID] = []
        var next = 0
        var sharedFrames = 0
        for _ in 0..<2000 {
            switch random.next() % 10 {
            case 0 where present.count < 8:
                next += 1
                let id = ClientID("m\(next)")
                d.join(id)
                present.append(id)
            case 1 where present.count > 2:
                let id = present.remove(at: Int(random.next() % UInt64(present.count)))
                _ = d.room.leave(id, at: d.now)
            case 2, 3, 4:
                guard let id = present.randomElement(using: &random) else { continue }
                let control = ["gain", "size", "color"].randomElement(using: &random)!
                let thumb: String? = control == "color" ? "red" : nil
                switch random.next() % 4 {
                case 0: _ = d.begin(id, control, thumb)
                case 1: _ = d.move(id, control, thumb, dx: Double(random.next() % 100) / 100)
                case 2: _ = d.end(id, control, thumb)
                default: _ = d.step(id, control, thumb: thumb, by: 1)
                }
            case 5:
                // One member's own frame between rounds (an ack's writable callback).
                if let id = present.randomElement(using: &random) { _ = d.room.nextFrame(for: id) }
            default:
                guard let round = d.room.openRound() else { continue }
                for id in present where random.next() % 5 != 0 { // some are skipped (armed, slow)
                    var alone = d.room
                    let expected = alone.nextFrame(for: id)
                    switch d.room.share(of: round, for: id) {
                    case .nothing:
                        #expect(expected == nil, "nothing for \(id), but nextFrame has \(String(describing: expected))")
                    case let .shared(ack, present):
                        var got = round.update
                        got.ack = ack
                        got.present = present
                        #expect(.update(got) == expected)
                        sharedFrames += 1
                    case .own:
                        _ = d.room.nextFrame(for: id)
                    }
                }
            }
            d.advance(seconds: 0.004)
        }
        #expect(sharedFrames > 100, "the walk should share many frames")
    }
}
