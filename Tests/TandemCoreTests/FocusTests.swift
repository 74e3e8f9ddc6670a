import Testing
@testable import TandemCore

/// Focus: where each person is, shown in their presence before they drag.
@Suite("Focus")
struct FocusTests {
    private func people() -> RoomDriver {
        var d = RoomDriver()
        d.join("ann"); d.join("ben")
        _ = d.drain("ann"); _ = d.drain("ben")
        return d
    }

    private func joined(_ frames: [Frame]) -> [Peer] {
        var peers: [Peer] = []
        for case let .update(u) in frames { peers += u.joined }
        return peers
    }

    @Test("a focus goes to everyone as the person's peer with the control, in place in the list; none clears it")
    func shown() {
        var d = people()
        let effects = d.send("ann", .focus(control: "gain"))
        #expect(effects.rejects.isEmpty)
        #expect(joined(d.drain("ben")).map(\.focus) == ["gain"])
        #expect(d.room.peers.map(\.client) == ["ann", "ben"])
        #expect(d.room.peers.first?.focus == "gain")
        _ = d.send("ann", .focus(control: nil))
        #expect(joined(d.drain("ben")).map(\.focus) == [nil])
        // The same focus again says nothing.
        _ = d.send("ann", .focus(control: nil))
        #expect(joined(d.drain("ben")).isEmpty)
    }

    @Test("a viewer may focus (it is not a write); an unknown control is refused; a newcomer's welcome shows it")
    func viewersAndNewcomers() {
        var d = people()
        d.join("vic", role: .viewer)
        #expect(d.send("vic", .focus(control: "size")).rejects.isEmpty)
        #expect(d.send("vic", .focus(control: "nope")).rejects.map(\.code) == [.unknownControl])
        #expect(d.send("vic", .set(control: "size", thumb: nil, value: .number(100))).rejects.map(\.code) == [.forbidden])
        let welcome = d.join("cat")
        #expect(welcome.peers.first { $0.client == "vic" }?.focus == "size")
    }

    @Test("a view shows an authority's focus change in place, without moving the person in the list")
    func inAView() {
        let initial = RoomSchema.demo.controls.map(\.initial)
        let zeros = Array(repeating: 0, count: initial.count)
        let nobody = Array(repeating: ClientID?.none, count: initial.count)
        var authority = RoomAuthority(schema: .demo, committed: initial, revisions: zeros, revision: 0, committedBy: nobody)
        var view = RoomView(schema: .demo, committed: initial, revisions: zeros, revision: 0, committedBy: nobody)
        _ = authority.register("ann", name: "Ann", role: .editor, ack: 0, at: .zero)
        _ = authority.register("ben", name: "Ben", role: .editor, ack: 0, at: .zero)
        view.absorb(authority.publishDelta(), isLocal: { _ in false })
        _ = authority.apply(ClientMessage(seq: 1, .focus(control: "gain")), from: "ann", at: .zero)
        view.absorb(authority.publishDelta(), isLocal: { _ in false })
        #expect(view.room.peers.map(\.client) == ["ann", "ben"])
        #expect(view.room.peers.first?.focus == "gain")
    }
}
