import Testing
@testable import TandemCore

/// A member that takes no frames (an OSC writer): a member for the room's
/// rules, but nothing waits for it to read.
@Suite("A member that takes no frames")
struct FramelessMemberTests {
    @Test("it has no frame waiting, whatever happens; its reject is an effect, not a frame")
    func noFrames() {
        var room = Room(schema: .demo)
        _ = room.join(ClientID("ann"), name: "Ann", at: .seconds(1))
        let (_, _) = room.join(ClientID("osc"), name: "synth", role: .editor, takesFrames: false, at: .seconds(1))
        let set = ClientMessage(seq: 1, .set(control: "gain", thumb: nil, value: .number(0.3)))
        let effects = room.apply(set, from: ClientID("osc"), at: .seconds(2))
        #expect(effects.contains { if case .commit = $0 { true } else { false } })
        #expect(!room.hasPendingFrame(for: ClientID("osc")))
        #expect(room.nextFrame(for: ClientID("osc")) == nil)
        #expect(room.hasPendingFrame(for: ClientID("ann")))
        let refused = room.apply(ClientMessage(seq: 2, .set(control: "nope", thumb: nil, value: .number(0.3))), from: ClientID("osc"), at: .seconds(3))
        #expect(refused.contains { if case let .reject(r) = $0 { r.to == ClientID("osc") && r.code == .unknownControl } else { false } })
        #expect(room.nextFrame(for: ClientID("osc")) == nil)
        #expect(room.contains(ClientID("osc")))
    }

    @Test("departed peers are forgotten without it reading a frame; a member that takes frames and never reads keeps them")
    func departuresDoNotWait() {
        func churn(writerTakesFrames: Bool) -> Int {
            var room = Room(schema: .demo)
            _ = room.join(ClientID("writer"), name: "w", takesFrames: writerTakesFrames, at: .seconds(1))
            for n in 0..<100 {
                let id = ClientID("p\(n)")
                _ = room.join(id, name: "p\(n)", at: .seconds(2))
                _ = room.leave(id, at: .seconds(2))
            }
            return room.departed.count
        }
        #expect(churn(writerTakesFrames: false) <= 33)
        #expect(churn(writerTakesFrames: true) == 100)
    }
}
