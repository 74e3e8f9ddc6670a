import Testing
@testable import TandemCore

/// One test per reject code of protocol v1, each checking the code, that the
/// connection's ack still moves, and that nothing changed.
@Suite("Reject codes")
struct RejectCodeTests {
    /// Applies `operation` after `setup` and returns the single reject, checking that state did not change.
    private func rejectOf(_ operation: Operation, role: Role = .editor, setup: (inout RoomDriver) -> Void = { _ in },
                          sourceLocation: SourceLocation = #_sourceLocation) -> Reject? {
        var d = RoomDriver()
        d.join("c1", role: role)
        d.join("c2")
        setup(&d)
        let before = (d.room.committed, d.room.revision, (0..<5).map { d.room.displayed($0) })
        let effects = d.send("c1", operation)
        #expect(d.room.committed == before.0, sourceLocation: sourceLocation)
        #expect(d.room.revision == before.1, sourceLocation: sourceLocation)
        #expect((0..<5).map { d.room.displayed($0) } == before.2, sourceLocation: sourceLocation)
        #expect(effects.rejects.count == 1, sourceLocation: sourceLocation)
        return effects.rejects.first
    }

    @Test("a seq that does not increase is a bad_message and is not applied")
    func seqMustIncrease() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.room.apply(ClientMessage(seq: 5, .step(control: "size", thumb: nil, by: 1)), from: "c1", at: d.now)
        let effects = d.room.apply(ClientMessage(seq: 5, .step(control: "size", thumb: nil, by: 1)), from: "c1", at: d.now)
        #expect(effects.rejects.map(\.code) == [.badMessage])
        #expect(d.state("size") == .snap(index: 3, value: 80))
        let again = d.room.apply(ClientMessage(seq: 4, .step(control: "size", thumb: nil, by: 1)), from: "c1", at: d.now)
        #expect(again.rejects.map(\.code) == [.badMessage])
        #expect(d.state("size") == .snap(index: 3, value: 80))
    }

    @Test("an unknown control is unknown_control")
    func unknownControl() {
        let r = rejectOf(.set(control: "volume", thumb: nil, value: .number(1)))
        #expect(r?.code == .unknownControl)
        #expect(r?.message.contains("volume") == true)
    }

    @Test("a thumb the control lacks is unknown_thumb, and so is a missing thumb on a two-thumb control")
    func unknownThumb() {
        #expect(rejectOf(.drag(control: "blanks", thumb: "middle", phase: .begin, pointer: nil))?.code == .unknownThumb)
        #expect(rejectOf(.drag(control: "blanks", thumb: nil, phase: .begin, pointer: nil))?.code == .unknownThumb)
        #expect(rejectOf(.step(control: "color", thumb: "alpha", by: 1))?.code == .unknownThumb)
        #expect(rejectOf(.set(control: "size", thumb: "lower", value: .number(40)))?.code == .unknownThumb)
    }

    @Test("NaN, infinity, fractional steps and wrong types are bad_value")
    func badValue() {
        #expect(rejectOf(.set(control: "gain", thumb: nil, value: .number(.nan)))?.code == .badValue)
        #expect(rejectOf(.set(control: "bpm", thumb: nil, value: .number(.infinity)))?.code == .badValue)
        #expect(rejectOf(.set(control: "gain", thumb: nil, value: .text("0.5")))?.code == .badValue)
        #expect(rejectOf(.set(control: "gain", thumb: nil, value: .other("boolean")))?.code == .badValue)
        #expect(rejectOf(.set(control: "color", thumb: nil, value: .text("#12345")))?.code == .badValue)
        #expect(rejectOf(.set(control: "color", thumb: nil, value: .number(0.5)))?.code == .badValue)
        #expect(rejectOf(.set(control: "color", thumb: "red", value: .text("#FF0000")))?.code == .badValue)
        #expect(rejectOf(.step(control: "size", thumb: nil, by: 0.5))?.code == .badValue)
        #expect(rejectOf(.drag(control: "gain", thumb: nil, phase: .begin, pointer: .at(.nan)))?.code == .badValue)
        #expect(rejectOf(.drag(control: "gain", thumb: nil, phase: .move, pointer: .dx(.infinity)),
                         setup: { _ = $0.begin("c1", "gain", nil) })?.code == .badValue)
    }

    @Test("drags and steps on a gauge are read_only, while a set stores its value")
    func readOnly() {
        #expect(rejectOf(.drag(control: "bpm", thumb: nil, phase: .begin, pointer: nil))?.code == .readOnly)
        #expect(rejectOf(.step(control: "bpm", thumb: nil, by: 1))?.code == .readOnly)
        var d = RoomDriver()
        d.join("c1")
        #expect(d.set("c1", "bpm", .number(200)).rejects.isEmpty)
        #expect(d.state("bpm") == .gauge(value: 200, fraction: 1))
    }

    @Test("a begin on a thumb someone else holds is busy and names the holder")
    func busy() {
        let r = rejectOf(.drag(control: "blanks", thumb: "upper", phase: .begin, pointer: nil),
                         setup: { _ = $0.begin("c2", "blanks", "upper") })
        #expect(r?.code == .busy)
        #expect(r?.holder == "c2")
    }

    @Test("a set or step of a held thumb is busy, naming the holder")
    func busyForSetAndStep() {
        let held: (inout RoomDriver) -> Void = { _ = $0.begin("c2", "color", "green") }
        #expect(rejectOf(.set(control: "color", thumb: "green", value: .number(1)), setup: held)?.holder == "c2")
        #expect(rejectOf(.set(control: "color", thumb: nil, value: .text("#000000")), setup: held)?.code == .busy)
        #expect(rejectOf(.step(control: "color", thumb: "green", by: 1), setup: held)?.code == .busy)
    }

    @Test("move, end and cancel without a begin of one's own are no_gesture")
    func noGesture() {
        #expect(rejectOf(.drag(control: "gain", thumb: nil, phase: .move, pointer: .dx(0.1)))?.code == .noGesture)
        #expect(rejectOf(.drag(control: "gain", thumb: nil, phase: .end, pointer: nil))?.code == .noGesture)
        #expect(rejectOf(.drag(control: "gain", thumb: nil, phase: .cancel, pointer: nil))?.code == .noGesture)
        let other = rejectOf(.drag(control: "gain", thumb: nil, phase: .move, pointer: .dx(0.1)),
                             setup: { _ = $0.begin("c2", "gain", nil) })
        #expect(other?.code == .noGesture)
    }

    @Test("a viewer's writes are forbidden")
    func forbidden() {
        #expect(rejectOf(.step(control: "size", thumb: nil, by: 1), role: .viewer)?.code == .forbidden)
        #expect(rejectOf(.drag(control: "gain", thumb: nil, phase: .begin, pointer: nil), role: .viewer)?.code == .forbidden)
    }

    @Test("messages past the rate limit are rate_limited until tokens refill")
    func rateLimited() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 10, burst: 5))
        d.join("c1")
        var codes: [RejectCode] = []
        for _ in 0..<8 { codes += d.step("c1", "gain", by: 1).rejects.map(\.code) }
        #expect(codes == [.rateLimited, .rateLimited, .rateLimited])
        #expect(d.state("gain") == .slider(value: 0.55))
        d.advance(seconds: 0.1) // one token back
        #expect(d.step("c1", "gain", by: 1).rejects.isEmpty)
        #expect(d.step("c1", "gain", by: 1).rejects.map(\.code) == [.rateLimited])
    }

    @Test("every reject moves the ack and reaches its client before the update that acks it")
    func rejectsAreAckedAndSentFirst() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.drain("c1")
        _ = d.set("c1", "nope", .number(1))
        let frames = d.drain("c1")
        guard frames.count == 2, case let .reject(r) = frames[0], case let .update(u) = frames[1] else {
            Issue.record("expected a reject then an update, got \(frames)")
            return
        }
        #expect(r.seq == 1)
        #expect(u.ack == 1)
        #expect(u.changes.isEmpty)
    }

    @Test("rejects pile up to the limit for a client that does not read, then are counted and dropped, and the ack stops below the first dropped")
    func pendingRejectsAreBounded() {
        var d = RoomDriver(limits: RoomLimits(pendingRejects: 4))
        d.join("c1")
        _ = d.drain("c1")
        for _ in 0..<10 { _ = d.set("c1", "nope", .number(1)) }
        #expect(d.room.droppedRejects(for: "c1") == 6)
        let frames = d.drain("c1")
        let rejects = frames.compactMap { if case let .reject(r) = $0 { r.seq } else { nil } }
        #expect(rejects.count == 4)
        // The ack never stands for a message whose reject was dropped.
        let acks = frames.compactMap { if case let .update(u) = $0 { u.ack } else { nil } }
        #expect(acks.allSatisfy { $0 <= rejects.max() ?? 0 })
    }

    @Test("the protocol's reject codes are exactly the ten of v1.1, presets' unknown_preset, the cluster's unavailable and unknown, and claims' claimed")
    func codesMatchTheProtocol() {
        #expect(Set(RejectCode.allCases.map(\.rawValue)) == [
            "bad_message", "unknown_control", "unknown_thumb", "bad_value", "read_only",
            "busy", "no_gesture", "forbidden", "rate_limited", "unauthorized", "unknown_preset", "unavailable", "unknown",
            "claimed",
        ])
    }
}

@Suite("Refusals from the wire")
struct WireRefusalTests {
    @Test("a refusal with a readable seq is queued and acked; one without leaves the ack alone")
    func refusalsAreQueuedAndAcked() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.drain("c1")
        let effects = d.room.refuse("c1", seq: 7, code: .badMessage, message: "phase must be begin, move, end or cancel")
        #expect(effects.contains(.ack(client: "c1", seq: 7)))
        _ = d.room.refuse("c1", seq: nil, code: .badMessage, message: "not JSON")
        let frames = d.drain("c1")
        guard frames.count == 3, case let .reject(first) = frames[0], case let .reject(second) = frames[1],
              case let .update(u) = frames[2] else {
            Issue.record("expected two rejects and an update, got \(frames)")
            return
        }
        #expect(first.seq == 7 && first.code == .badMessage)
        #expect(second.seq == 0)
        #expect(u.ack == 7)
        let late = d.room.apply(ClientMessage(seq: 7, .step(control: "size", thumb: nil, by: 1)), from: "c1", at: d.now)
        #expect(late.rejects.map(\.code) == [.badMessage], "seq 7 was used by the refused message")
    }
}

@Suite("Acknowledging what the room does not interpret")
struct AcknowledgeTests {
    @Test("acknowledge moves the ack like any message, and refuses a seq that does not increase")
    func acknowledges() {
        var d = RoomDriver()
        d.join("c1")
        _ = d.drain("c1")
        #expect(d.room.acknowledge("c1", seq: 5, at: .zero) == [.ack(client: "c1", seq: 5)])
        let again = d.room.acknowledge("c1", seq: 5, at: .zero)
        #expect(again.count == 1)
        guard case let .reject(reject)? = again.first else { Issue.record("no reject"); return }
        #expect(reject.code == .badMessage)
        // A refusal after the acknowledgement (a bad token) queues a reject, the ack stays.
        let refused = d.room.refuse("c1", seq: 6, code: .unauthorized, message: "bad signature")
        #expect(refused.contains(.ack(client: "c1", seq: 6)))
        let frames = d.drain("c1")
        #expect(frames.contains { if case let .reject(r) = $0 { r.code == .unauthorized } else { false } })
    }

    @Test("acknowledge counts against the rate limit")
    func rateLimited() {
        var d = RoomDriver(limits: RoomLimits(messagesPerSecond: 1, burst: 2))
        d.join("c1")
        var codes: [RejectCode] = []
        for seq in 1...4 {
            for effect in d.room.acknowledge("c1", seq: seq, at: .zero) {
                if case let .reject(r) = effect { codes.append(r.code) }
            }
        }
        #expect(codes == [.rateLimited, .rateLimited])
    }

    @Test("a viewer's every write kind is forbidden, and changes nothing")
    func viewerWrites() {
        var room = Room(schema: .demo)
        _ = room.join("v", name: "V", role: .viewer, at: .zero)
        let before = room.committed
        let operations: [Operation] = [
            .drag(control: "size", thumb: nil, phase: .begin, pointer: .at(0.9)),
            .set(control: "gain", thumb: nil, value: .number(0.9)),
            .step(control: "size", thumb: nil, by: 1),
            .undo, .redo,
        ]
        for (i, operation) in operations.enumerated() {
            let effects = room.apply(ClientMessage(seq: i + 1, operation), from: "v", at: .zero)
            #expect(effects.contains { if case let .reject(r) = $0 { r.code == .forbidden } else { false } })
        }
        #expect(room.committed == before)
        #expect(room.role(of: "v") == .viewer)
    }
}
