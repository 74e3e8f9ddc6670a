import Testing
@testable import TandemServer

@Suite("Connection limiter")
struct ConnectionLimiterTests {
    let alice = PeerAddress(text: "192.0.2.10")
    let bob = PeerAddress(text: "192.0.2.20")
    let local = PeerAddress(text: "127.0.0.1")

    func limiter(max: Int, perAddress: Int = 0, reserve: Int = 4) -> ConnectionLimiter {
        ConnectionLimiter(.init(maxConnections: max, maxPerAddress: perAddress, answerReserve: reserve))
    }

    @Test("admits up to the limit, then answers up to the reserve, then displaces the oldest unfinished socket")
    func fillsThenAnswersThenDisplaces() {
        for max in 1...6 {
            for reserve in 0...3 {
                var gate = limiter(max: max, reserve: reserve)
                let admitted = (0..<max).map { _ in gate.admit(alice) }
                #expect(admitted.allSatisfy { $0.admission == .admit && $0.evict == nil })
                let answered = (0..<reserve).map { _ in gate.admit(bob) }
                #expect(answered.allSatisfy { $0.admission == .answer(.full) && $0.evict == nil })
                let next = gate.admit(bob)
                #expect(next.evict == admitted[0].id, "the oldest socket with no request gives way")
                #expect(next.admission == .admit)
                #expect(gate.admitted == max && gate.answering == reserve)
            }
        }
    }

    @Test("a socket that sent a request is never displaced; with none left to displace, newcomers are dropped")
    func requestedSocketsStay() {
        var gate = limiter(max: 3, reserve: 2)
        let members = (0..<3).map { _ in gate.admit(alice) }
        for member in members { gate.requested(member.id) }
        let answered = (0..<2).map { _ in gate.admit(bob) }
        for socket in answered { gate.requested(socket.id) }
        let next = gate.admit(bob)
        #expect(next.admission == .drop(.full) && next.evict == nil)
        #expect(gate.open == 5)
    }

    @Test("a newcomer displaces an unfinished socket told no, taking its place in the reserve")
    func displacesFromTheReserve() {
        var gate = limiter(max: 1, reserve: 1)
        let member = gate.admit(alice)
        gate.requested(member.id)
        let told = gate.admit(bob)
        #expect(told.admission == .answer(.full))
        let next = gate.admit(bob)
        #expect(next.evict == told.id && next.admission == .answer(.full))
        gate.release(told.id)
        #expect(gate.answering == 1 && gate.admitted == 1)
    }

    @Test("releasing every socket, in any order, leaves the limiter empty")
    func releaseBalances() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            var gate = limiter(max: 5, perAddress: 3, reserve: 2)
            var open: [ConnectionLimiter.SocketID] = []
            for i in 0..<(10 + round) {
                let peer = [alice, bob, local][i % 3]
                let decision = gate.admit(peer)
                if case .drop = decision.admission {} else { open.append(decision.id) }
                if let evicted = decision.evict { open.removeAll { $0 == evicted }; gate.release(evicted) }
                if i % 4 == 0, let id = open.randomElement(using: &generator) { gate.requested(id) }
            }
            for id in open.shuffled(using: &generator) { gate.release(id) }
            #expect(gate.open == 0 && gate.admitted == 0 && gate.answering == 0)
            #expect(gate.count(from: alice) == 0 && gate.count(from: bob) == 0)
        }
    }

    @Test("the per-address limit answers past it, drops past the reserve, and frees with a release")
    func perAddress() {
        var gate = limiter(max: 100, perAddress: 2, reserve: 1)
        let first = gate.admit(alice)
        _ = gate.admit(alice)
        let told = gate.admit(alice)
        let dropped = gate.admit(alice)
        #expect([told.admission, dropped.admission] == [.answer(.perAddress), .drop(.perAddress)])
        let other = gate.admit(bob).admission
        #expect(other == .admit, "another address is not affected")
        gate.release(first.id)
        gate.release(told.id) // sockets told no count for their address until they go
        let again = gate.admit(alice).admission
        #expect(again == .admit)
    }

    @Test("loopback is exempt from the per-address limit unless told otherwise")
    func loopbackExempt() {
        var gate = limiter(max: 100, perAddress: 2)
        let exempt = (0..<10).map { _ in gate.admit(local).admission }
        #expect(exempt.allSatisfy { $0 == .admit })
        var strict = ConnectionLimiter(.init(maxConnections: 100, maxPerAddress: 2, exemptLoopback: false, answerReserve: 0))
        let counted = (0..<3).map { _ in strict.admit(local).admission }
        #expect(counted == [.admit, .admit, .drop(.perAddress)])
    }

    @Test("a socket of unknown address counts against the total only")
    func unknownAddress() {
        var gate = limiter(max: 2, perAddress: 1, reserve: 0)
        let two = [gate.admit(nil).admission, gate.admit(nil).admission]
        #expect(two == [.admit, .admit])
        let third = gate.admit(nil)
        #expect(third.admission == .admit && third.evict != nil)
    }

    @Test("a displaced socket's departure says so and frees nothing twice")
    func displacedDeparture() {
        var gate = limiter(max: 1, reserve: 0)
        let old = gate.admit(alice)
        let new = gate.admit(bob)
        #expect(new.evict == old.id)
        let departure = gate.release(old.id)
        #expect(departure == .init(admission: .admit, neverRequested: true, evicted: true))
        #expect(gate.admitted == 1)
        let twice = gate.release(old.id)
        #expect(twice == nil)
    }

    @Test("the derived limit leaves a tenth of the descriptors (at least 64) and the answer reserve")
    func derivedLimit() {
        #expect(Server.derivedConnectionLimit(descriptors: 20_000) == 20_000 - 2_000 - 64)
        #expect(Server.derivedConnectionLimit(descriptors: 1_024) == 1_024 - 102 - 64)
        #expect(Server.derivedConnectionLimit(descriptors: 256) == 256 - 64 - 64)
        #expect(Server.derivedConnectionLimit(descriptors: 64) == 16)
    }
}
