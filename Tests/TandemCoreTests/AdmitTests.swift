import Testing
@testable import TandemCore

/// `Room.admitWrite`: the order, rate and role checks a costly write (a
/// restore, which reads a past state) passes before the server does anything
/// for it, and `applyAdmitted`, its operation after them.
@Suite("Admitting a write")
struct AdmitTests {
    private let warm = Batch(origin: "restore 1", states: ["gain": .slider(value: 0.8)])

    @Test("a viewer is refused forbidden, acked, and nothing else happens")
    func viewer() {
        var d = RoomDriver()
        d.join("vi", role: .viewer)
        let (admitted, effects) = d.room.admitWrite("vi", seq: 1, at: d.now)
        #expect(!admitted)
        #expect(effects.rejects.map(\.code) == [.forbidden])
        #expect(effects.contains { if case .ack(_, 1) = $0 { true } else { false } })
        #expect(d.room.revision == 0)
    }

    @Test("a seq that does not increase is refused bad_message before the rate is charged")
    func order() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 1))
        d.join("ed")
        #expect(d.room.admitWrite("ed", seq: 5, at: d.now).admitted)
        let (admitted, effects) = d.room.admitWrite("ed", seq: 5, at: d.now)
        #expect(!admitted)
        #expect(effects.rejects.map(\.code) == [.badMessage])
    }

    @Test("past the member's rate a write is refused rate_limited, a viewer's too (as apply orders them)")
    func rate() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 2))
        d.join("ed")
        d.join("vi", role: .viewer)
        var codes: [RejectCode?] = []
        var viewerCodes: [RejectCode?] = []
        for seq in 1...4 {
            let (admitted, effects) = d.room.admitWrite("ed", seq: seq, at: d.now)
            codes.append(admitted ? nil : effects.rejects.first?.code)
            viewerCodes.append(d.room.admitWrite("vi", seq: seq, at: d.now).effects.rejects.first?.code)
        }
        #expect(codes == [nil, nil, .rateLimited, .rateLimited])
        #expect(viewerCodes == [.forbidden, .forbidden, .rateLimited, .rateLimited])
    }

    @Test("a costly write takes its cost of the member's rate: a restore, sixty messages' worth")
    func cost() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 2.5 * Room.restoreCost))
        d.join("ed")
        var admitted = 0
        for seq in 1...5 where d.room.admitWrite("ed", seq: seq, cost: Room.restoreCost, at: d.now).admitted { admitted += 1 }
        #expect(admitted == 2)
        // What is left (half a restore's worth) still admits that many plain messages, not one more.
        let left = Int(Room.restoreCost / 2)
        var plain = 0
        for seq in 6...(6 + left) where d.room.admitWrite("ed", seq: seq, at: d.now).admitted { plain += 1 }
        #expect(plain == left)
    }

    @Test("an admitted batch applies once, without being charged or ordered again")
    func appliedAfter() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 1))
        d.join("ed")
        let (admitted, gated) = d.room.admitWrite("ed", seq: 1, at: d.now)
        #expect(admitted && gated.rejects.isEmpty)
        let effects = d.room.applyAdmitted(ClientMessage(seq: 1, .batch(warm)), from: "ed", at: d.now)
        #expect(effects.rejects.isEmpty)
        #expect(effects.commits.map(\.control) == ["gain"])
        #expect(d.state("gain") == .slider(value: 0.8))
        // The one token is spent: the next write is refused.
        #expect(d.room.admitWrite("ed", seq: 2, at: d.now).effects.rejects.map(\.code) == [.rateLimited])
    }

    @Test("apply answers exactly as admitWrite then applyAdmitted do")
    func sameAsApply() {
        for role in [Role.viewer, .editor] {
            var a = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 2))
            var b = a
            a.join("x", role: role)
            b.join("x", role: role)
            for seq in [1, 1, 2, 3, 4] {
                let message = ClientMessage(seq: seq, .batch(warm))
                let applied = a.room.apply(message, from: "x", at: a.now)
                let (admitted, gated) = b.room.admitWrite("x", seq: seq, at: b.now)
                let split = admitted ? gated + b.room.applyAdmitted(message, from: "x", at: b.now) : gated
                #expect(applied.rejects.map(\.code) == split.rejects.map(\.code), "\(role) seq \(seq)")
                #expect(applied.commits.count == split.commits.count, "\(role) seq \(seq)")
            }
            #expect(a.room.revision == b.room.revision)
        }
    }

    @Test("the HTTP API's client (not a member) is admitted with no effects")
    func notAMember() {
        var d = RoomDriver()
        let (admitted, effects) = d.room.admitWrite("api", seq: 1, at: d.now)
        #expect(admitted && effects.isEmpty)
    }
}
