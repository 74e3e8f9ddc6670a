import Testing
@testable import TandemCore

/// Claims: "only I move this until I let go of it" (docs/protocol.md, "Claims").
@Suite("Claims")
struct ClaimTests {
    private func people() -> RoomDriver {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1e9, burst: 1e9, claimTimeout: 60))
        d.join("ann"); d.join("ben"); d.join("ada", role: .admin)
        for who in ["ann", "ben", "ada"] as [ClientID] { _ = d.drain(who) }
        return d
    }

    private func c(_ d: RoomDriver, _ id: String) -> Int { d.room.schema.index(of: id)! }

    private func claimedChange(_ frames: [Frame], _ control: String) -> ControlChange? {
        frames.compactMap { if case let .update(u) = $0 { u.changes.last { $0.control == control } } else { nil } }.last
    }

    @Test("a claim refuses everyone else's drag, set, step and reset with claimed naming the holder; the holder's own go on")
    func othersAreRefused() {
        var d = people()
        #expect(d.send("ann", .claim(control: "gain")).rejects.isEmpty)
        #expect(d.room.claimedBy[c(d, "gain")] == "ann")
        let refused = [
            d.begin("ben", "gain", nil),
            d.set("ben", "gain", .number(0.9)),
            d.step("ben", "gain", by: 1),
            d.send("ben", .reset(control: "gain")),
            d.send("ben", .claim(control: "gain")),
        ]
        for effects in refused {
            #expect(effects.rejects.map(\.code) == [.claimed])
            #expect(effects.rejects.first?.holder == "ann")
        }
        #expect(d.state("gain") == .slider(value: 0.5))
        #expect(d.set("ann", "gain", .number(0.9)).commits.map(\.control) == ["gain"])
        // Other controls are free.
        #expect(d.set("ben", "size", .number(100)).rejects.isEmpty)
    }

    @Test("everyone's next frame carries the control with its claim, and again when it ends; no revision either time")
    func framesCarryTheClaim() {
        var d = people()
        let revision = d.room.revision
        _ = d.send("ann", .claim(control: "gain"))
        let claimed = claimedChange(d.drain("ben"), "gain")
        #expect(claimed?.claim == "ann" && claimed?.revision == 0 && claimed?.state == .slider(value: 0.5))
        #expect(d.room.revision == revision)
        _ = d.send("ann", .release(control: "gain"))
        let released = claimedChange(d.drain("ben"), "gain")
        #expect(released != nil && released?.claim == nil)
        #expect(d.room.claimedBy[c(d, "gain")] == nil)
    }

    @Test("a newcomer's welcome shows the claim")
    func welcomeShowsIt() {
        var d = people()
        _ = d.send("ann", .claim(control: "gain"))
        let welcome = d.join("cat")
        #expect(welcome.controls[c(d, "gain")].claim == "ann")
        #expect(welcome.controls[c(d, "size")].claim == nil)
    }

    @Test("batches and undo that would touch a claimed control are claimed; a batch leaving it alone goes on")
    func batchesAndUndo() {
        var d = people()
        _ = d.set("ben", "gain", .number(0.8))
        _ = d.send("ann", .claim(control: "gain"))
        #expect(d.send("ben", .undo).rejects.map(\.code) == [.claimed])
        #expect(d.send("ben", .reset(control: nil)).rejects.map(\.code) == [.claimed])
        #expect(d.send("ben", .batch(Batch(origin: "preset", states: ["gain": .slider(value: 0.1), "size": .snap(index: 0, value: 20)])))
            .rejects.map(\.code) == [.claimed])
        #expect(d.state("size") == .snap(index: 2, value: 60))
        #expect(d.send("ben", .batch(Batch(origin: "preset", states: ["size": .snap(index: 0, value: 20)]))).rejects.isEmpty)
        // The holder's own batch may touch it.
        #expect(d.send("ann", .reset(control: nil)).rejects.isEmpty)
        #expect(d.state("gain") == .slider(value: 0.5))
    }

    @Test("only the holder or an admin releases a claim; anyone else's release is claimed")
    func whoReleases() {
        var d = people()
        _ = d.send("ann", .claim(control: "gain"))
        let ben = d.send("ben", .release(control: "gain"))
        #expect(ben.rejects.map(\.code) == [.claimed] && ben.rejects.first?.holder == "ann")
        #expect(d.room.claimedBy[c(d, "gain")] == "ann")
        #expect(d.send("ada", .release(control: "gain")).rejects.isEmpty)
        #expect(d.room.claimedBy[c(d, "gain")] == nil)
        // Releasing what nobody claims is acknowledged and changes nothing.
        let nothing = d.send("ben", .release(control: "gain"))
        #expect(nothing.rejects.isEmpty && nothing.contains(.ack(client: "ben", seq: d.lastSeq("ben"))))
    }

    @Test("a claim ends when its holder leaves")
    func endsOnLeave() {
        var d = people()
        _ = d.send("ann", .claim(control: "gain"))
        let effects = d.room.leave("ann", at: d.now)
        #expect(effects.contains(.claim(controlIndex: c(d, "gain"), holder: nil)))
        #expect(d.set("ben", "gain", .number(0.9)).rejects.isEmpty)
    }

    @Test("a claim lapses after the timeout without the holder touching the control; each write of theirs keeps it")
    func lapses() {
        var d = people()
        _ = d.send("ann", .claim(control: "gain"))
        #expect(d.room.nextLapse == d.now.adding(seconds: 60))
        d.advance(seconds: 50)
        _ = d.set("ann", "gain", .number(0.7)) // keeps it
        d.advance(seconds: 50)
        #expect(d.room.expire(at: d.now).isEmpty)
        #expect(d.room.claimedBy[c(d, "gain")] == "ann")
        d.advance(seconds: 10)
        #expect(d.room.hasLapsedHold(at: d.now))
        #expect(d.room.expire(at: d.now) == [.claim(controlIndex: c(d, "gain"), holder: nil)])
        #expect(d.set("ben", "gain", .number(0.9)).rejects.isEmpty)
    }

    @Test("a claim under someone else's finger is busy; a gauge cannot be claimed; a viewer's claim is forbidden")
    func refusedClaims() {
        var d = people()
        _ = d.begin("ben", "gain", nil)
        let busy = d.send("ann", .claim(control: "gain"))
        #expect(busy.rejects.map(\.code) == [.busy] && busy.rejects.first?.holder == "ben")
        #expect(d.send("ann", .claim(control: "bpm")).rejects.map(\.code) == [.readOnly])
        d.join("vic", role: .viewer)
        #expect(d.send("vic", .claim(control: "size")).rejects.map(\.code) == [.forbidden])
        #expect(d.send("ann", .claim(control: "nope")).rejects.map(\.code) == [.unknownControl])
        // The API client (no connection) cannot hold one.
        #expect(d.room.apply(ClientMessage(seq: 1, .claim(control: "size")), from: "api", at: d.now).rejects.map(\.code) == [.badMessage])
    }

    @Test("the holder's own gesture on a control it claims goes on; claiming again only refreshes")
    func holderDrags() {
        var d = people()
        _ = d.send("ann", .claim(control: "gain"))
        _ = d.begin("ann", "gain", nil)
        _ = d.move("ann", "gain", nil, dx: 0.2)
        #expect(d.end("ann", "gain", nil).commits.map(\.control) == ["gain"])
        let again = d.send("ann", .claim(control: "gain"))
        #expect(again.rejects.isEmpty && !again.contains { if case .claim = $0 { true } else { false } })
    }
}
