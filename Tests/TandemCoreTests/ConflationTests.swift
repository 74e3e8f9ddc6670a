import Testing
@testable import TandemCore
import TandemTestSupport

@Suite("Conflation")
struct ConflationTests {
    private func update(_ frames: [Frame], sourceLocation: SourceLocation = #_sourceLocation) -> Update? {
        let updates = frames.compactMap { if case let .update(u) = $0 { u } else { nil } }
        #expect(updates.count == 1, "expected one update, got \(frames)", sourceLocation: sourceLocation)
        return updates.first
    }

    @Test("a recipient that read nothing during 20,000 moves gets one frame with the latest of each")
    func slowRecipientGetsLatestOnly() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9))
        d.join("mover"); d.join("slow")
        _ = d.drain("slow")
        _ = d.begin("mover", "gain", nil)
        for i in 1...20_000 {
            _ = d.move("mover", "gain", nil, dx: Double(i % 100) / 200)
            d.advance(seconds: 0.001)
        }
        _ = d.move("mover", "gain", nil, dx: 0.29)
        _ = d.end("mover", "gain", nil)
        _ = d.begin("mover", "gain", nil)
        _ = d.move("mover", "gain", nil, dx: -0.2)
        let frames = d.drain("slow")
        #expect(frames.count == 1)
        guard let u = update(frames) else { return }
        #expect(u.changes.map(\.state) == [.slider(value: 0.79)])
        #expect(u.changes.map(\.by) == ["mover"])
        // The ended gesture's last entry, then the gesture that took the thumb after it.
        #expect(u.gestures.map(\.entry.phase) == [.end, .move])
        #expect(u.gestures.last?.entry.state == .slider(value: 0.59))
        #expect(u.ack == 0, "slow sent nothing")
        #expect(d.room.log.nodeCount <= 5 + 2 * 8 + 1 + 2) // controls, gesture slots twice, the presence count, two peers
    }

    @Test("a recipient's frames carry its own ack, and a no-op still gets an ack-only update")
    func ackOnlyUpdate() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.drain("c1")
        #expect(d.room.nextFrame(for: "c1") == nil)
        _ = d.step("c1", "size", by: 0)
        #expect(d.room.hasPendingFrame(for: "c1"))
        guard let u = update(d.drain("c1")) else { return }
        #expect(u.ack == 1)
        #expect(u.changes.isEmpty && u.gestures.isEmpty && u.joined.isEmpty && u.left.isEmpty)
        #expect(!d.room.hasPendingFrame(for: "c1"))
    }

    @Test("recipients at the same point get the same change with the same stamp, to encode once")
    func sharedStampsForEncodeOnce() {
        var d = RoomDriver()
        d.join("a"); d.join("b"); d.join("c")
        _ = d.drain("a"); _ = d.drain("b"); _ = d.drain("c")
        _ = d.step("c", "size", by: 1)
        let ua = update(d.drain("a")), ub = update(d.drain("b"))
        #expect(ua?.changes == ub?.changes)
        #expect(ua?.changes.first?.stamp != nil)
        #expect(ua?.revision == 1)
    }

    @Test("joins and leaves reach those who saw the person, and nobody is told of their own join")
    func presence() {
        var d = RoomDriver()
        let welcome = d.join("a", "Ann")
        #expect(welcome.peers.map(\.name) == ["Ann"])
        #expect(d.drain("a").isEmpty, "no frame about one's own arrival")
        d.join("b", "Ben")
        guard let joined = update(d.drain("a")) else { return }
        #expect(joined.joined.map(\.name) == ["Ben"])
        #expect(joined.joined.first?.color != welcome.peers.first?.color)
        d.join("c", "Cy")
        _ = d.room.leave("c", at: d.now)
        _ = d.room.leave("b", at: d.now)
        guard let gone = update(d.drain("a")) else { return }
        #expect(gone.joined.isEmpty, "Cy came and went between frames")
        #expect(gone.left == ["b"], "Ann never saw Cy, so she is told only of Ben")
        d.join("d", "Di")
        _ = d.room.leave("d", at: d.now)
        #expect(d.drain("a").isEmpty, "someone who came and went unseen makes no frame at all")
    }

    @Test("a newcomer's welcome shows drags in progress, and its frames start after the welcome")
    func welcomeShowsLiveGestures() {
        var d = RoomDriver()
        d.join("a")
        _ = d.step("a", "size", by: 1)
        _ = d.begin("a", "gain", nil)
        _ = d.move("a", "gain", nil, dx: 0.1)
        let welcome = d.join("b")
        #expect(welcome.revision == 1)
        #expect(welcome.controls[0].state == .snap(index: 3, value: 80))
        #expect(welcome.controls[0].revision == 1)
        #expect(welcome.gestures.map(\.state) == [.slider(value: 0.6)])
        #expect(welcome.peers.map(\.client) == ["a", "b"])
        #expect(d.drain("b").isEmpty)
        _ = d.move("a", "gain", nil, dx: 0.2)
        #expect(update(d.drain("b"))?.gestures.map(\.entry.state) == [.slider(value: 0.7)])
    }

    @Test("the log stays bounded by controls, thumbs and people present, however many come and go")
    func logIsBoundedUnderChurn() {
        var d = RoomDriver()
        d.join("watcher")
        for i in 0..<2_000 {
            let id = ClientID("c\(i)")
            d.join(id)
            _ = d.begin(id, "blanks", "upper")
            _ = d.room.leave(id, at: d.now)
            if i % 10 == 0 { _ = d.drain("watcher") }
        }
        _ = d.drain("watcher")
        #expect(d.room.log.nodeCount < 5 + 2 * 8 + 1 + 64)
        #expect(d.room.departed.count < 64)
    }

    @Test("a view built only from frames always catches up with the committed state")
    func framesReproduceCommittedState() {
        var d = RoomDriver()
        d.join("a"); d.join("b")
        var view = d.join("view").controls.map(\.state)
        var rng = SplitMix64(seed: 7)
        for i in 0..<3_000 {
            let who: ClientID = rng.next() % 2 == 0 ? "a" : "b"
            switch rng.next() % 3 {
            case 0: _ = d.step(who, "size", by: Double(Int(rng.next() % 5) - 2))
            case 1: _ = d.set(who, "gain", .number(Double(rng.next() % 1000) / 999))
            default: _ = d.set(who, "blanks", thumb: rng.next() % 2 == 0 ? "lower" : "upper", .number(Double(rng.next() % 10)))
            }
            if i % 37 == 0 {
                for frame in d.drain("view") {
                    if case let .update(u) = frame { for c in u.changes { view[c.controlIndex] = c.state } }
                }
            }
        }
        for frame in d.drain("view") {
            if case let .update(u) = frame { for c in u.changes { view[c.controlIndex] = c.state } }
        }
        #expect(view == d.room.committed)
    }
}

@Suite("Withholding frames until commits are durable")
struct WithholdingTests {
    @Test("no frame leaves while frames are withheld, and everything waiting goes out after release")
    func framesWaitForRelease() {
        var d = RoomDriver()
        d.join("a"); d.join("b")
        _ = d.drain("a"); _ = d.drain("b")
        _ = d.step("a", "size", by: 1)
        d.room.withholdFrames()
        _ = d.set("b", "nope", .number(1))
        #expect(!d.room.hasPendingFrame(for: "a"))
        #expect(d.room.nextFrame(for: "b") == nil)
        d.room.releaseFrames()
        #expect(d.room.hasPendingFrame(for: "a"))
        let frames = d.drain("b")
        #expect(frames.count == 2, "the reject, then the update with the commit and the ack")
        guard case let .update(u) = frames.last else { Issue.record("no update"); return }
        #expect(u.changes.map(\.state) == [.snap(index: 3, value: 80)])
        #expect(u.ack == 1)
    }
}
