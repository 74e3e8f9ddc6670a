import Testing
import TandemBench
import TandemCore
import TandemWire

@Suite("The open-loop schedule and the latency recorder")
struct OpenLoopScheduleTests {
    let ms: UInt64 = 1_000_000

    @Test("move n is due at start + n/R, computed without drift")
    func dueTimes() {
        let s = OpenLoopSchedule(start: 5_000_000_000, hz: 60)
        #expect(s.due(0) == 5_000_000_000)
        #expect(s.due(1) == 5_016_666_667)
        #expect(s.due(60) == 6_000_000_000)
        #expect(s.due(3_600 * 60) == 5_000_000_000 + 3_600_000_000_000)
        #expect(s.scheduledTime(ofMove: 3) == s.due(3))
    }

    @Test("movesDue counts exactly the moves whose time has come")
    func movesDue() {
        let s = OpenLoopSchedule(start: 1_000, hz: 60)
        #expect(s.movesDue(at: 0) == 0)
        #expect(s.movesDue(at: 999) == 0)
        #expect(s.movesDue(at: 1_000) == 1)
        for n in [1, 2, 59, 60, 61, 10_000] {
            #expect(s.movesDue(at: s.due(n) - 1) == n)
            #expect(s.movesDue(at: s.due(n)) == n + 1)
        }
        #expect(s.nextDue(after: s.due(5)) == s.due(6))
        #expect(s.nextDue(after: 0) == s.due(0))
    }

    @Test("latency runs from the scheduled time, not from when a late move went out")
    func noCoordinatedOmission() {
        let s = OpenLoopSchedule(start: 0, hz: 100) // every 10 ms
        // The generator stalled 50 ms: move 2 went out at 70 ms instead of 20 ms
        // and arrived at 71 ms. Its latency is 51 ms, not 1 ms.
        #expect(s.latency(ofMove: 2, receivedAt: 71 * ms) == 51 * ms)
        #expect(s.latency(ofMove: 2, receivedAt: 10 * ms) == 0)
    }

    @Test("move codes: value n mod 1,000,000 + 1, dx = value/1e6, and back")
    func moveCode() {
        #expect(MoveCode.value(ofMove: 0) == 1)
        #expect(MoveCode.value(ofMove: 999_999) == 1_000_000)
        #expect(MoveCode.value(ofMove: 1_000_000) == 1)
        #expect(MoveCode.dx(ofMove: 41) == 0.000042)
        // The server snaps dx on the step-1 grid; the receiver recovers n.
        let math = SliderMath(min: 0, max: 1_000_000, step: 1)
        for n in [0, 1, 2, 41, 123_456, 999_998, 999_999, 1_000_000, 2_345_678] {
            let previewed = math.value(at: 0 + MoveCode.dx(ofMove: n))
            #expect(MoveCode.move(fromValue: previewed, latest: n) == n)
            #expect(MoveCode.move(fromValue: previewed, latest: n + 5) == n)
        }
        // Not a move: the begin's 0, off-grid, out of range; a code no move up to latest has.
        #expect(MoveCode.move(fromValue: 0, latest: 10) == nil)
        #expect(MoveCode.move(fromValue: 3.5, latest: 10) == nil)
        #expect(MoveCode.move(fromValue: 1_000_001, latest: 10) == nil)
        #expect(MoveCode.move(fromValue: 20, latest: 10) == nil)
        // After a wrap the latest matching move wins.
        #expect(MoveCode.move(fromValue: 5, latest: 1_000_010) == 1_000_004)
        #expect(MoveCode.move(fromValue: 999_999, latest: 1_000_010) == 999_998)
    }

    @Test("the bench room is a valid room of step-1 sliders, and the drag messages decode")
    func benchRoomAndMessages() throws {
        let body = MoveCode.roomJSON(id: "bench", sliders: 3)
        let room = try RoomSchema(validating: try SchemaDecoder.room(body))
        #expect(room.controls.map(\.id) == ["bench-0", "bench-1", "bench-2"])
        #expect(room.controls[0].kind == .slider(SliderMath(min: 0, max: 1_000_000, step: 1)))
        #expect(room.controls[0].commit == .release)
        let begin = try JSONParser.parse(MoveCode.beginMessage(seq: 1, control: "bench-0"))
        #expect(begin["phase"] == "begin" && begin["at"] == 0 && begin["seq"] == 1)
        let move = try JSONParser.parse(MoveCode.moveMessage(seq: 2, control: "bench-0", move: 41))
        #expect(move["phase"] == "move" && move["dx"] == .number(0.000042) && move["control"] == "bench-0")
    }

    @Test("the recorder maps observed values to moves and records each once per receiver")
    func recorder() {
        var recorder = LatencyRecorder()
        let schedule = OpenLoopSchedule(start: 1_000 * ms, hz: 50) // every 20 ms
        recorder.addMover(control: "bench-0", schedule: schedule)
        #expect(recorder.movers == ["bench-0"])
        // Move 3 (due 1060 ms) seen by receiver 0 at 1065 ms: 5 ms.
        let v3 = Double(MoveCode.value(ofMove: 3))
        #expect(recorder.observe(receiver: 0, control: "bench-0", value: v3, at: 1_065 * ms) == .recorded(move: 3, latency: 5 * ms))
        // Receiver 1 sees it later: 12 ms.
        #expect(recorder.observe(receiver: 1, control: "bench-0", value: v3, at: 1_072 * ms) == .recorded(move: 3, latency: 12 * ms))
        // Receiver 0 sees it again (the commit at the end): not recorded twice.
        #expect(recorder.observe(receiver: 0, control: "bench-0", state: .slider(value: v3), at: 1_080 * ms) == .repeated(move: 3))
        // Conflation skipped moves 4–6; move 7 (due 1140 ms) arrives at 1141 ms.
        let v7 = Double(MoveCode.value(ofMove: 7))
        #expect(recorder.observe(receiver: 0, control: "bench-0", value: v7, at: 1_141 * ms) == .recorded(move: 7, latency: 1 * ms))
        // An older move after a newer one is not recorded.
        #expect(recorder.observe(receiver: 0, control: "bench-0", value: v3, at: 1_150 * ms) == .repeated(move: 3))
        // Not moves: the begin's 0, another control, another kind.
        #expect(recorder.observe(receiver: 0, control: "bench-0", value: 0, at: 1_150 * ms) == .notAMove)
        #expect(recorder.observe(receiver: 0, control: "gain", value: v7, at: 1_150 * ms) == .notAMove)
        #expect(recorder.observe(receiver: 0, control: "bench-0", state: .gauge(value: 1, fraction: 0), at: 1_150 * ms) == .notAMove)
        // A value whose move is not yet due cannot be a move of this run.
        #expect(recorder.observe(receiver: 2, control: "bench-0", value: 100, at: 1_150 * ms) == .notAMove)
        #expect(recorder.delivered == 3 && recorder.repeated == 2 && recorder.unrelated == 4)
        #expect(recorder.total.count == 3)
        #expect(recorder.total.min == 1 * ms && recorder.total.max == 12 * ms)
        let interval = recorder.takeInterval()
        #expect(interval.count == 3)
        #expect(recorder.interval.count == 0 && recorder.total.count == 3)
    }

    @Test("each dragger has its own schedule and each receiver its own memory of moves")
    func severalMovers() {
        var recorder = LatencyRecorder()
        recorder.addMover(control: "bench-0", schedule: OpenLoopSchedule(start: 0, hz: 60))
        recorder.addMover(control: "bench-1", schedule: OpenLoopSchedule(start: 5 * ms, hz: 60))
        #expect(recorder.schedule(of: "bench-1")?.start == 5 * ms)
        let value = Double(MoveCode.value(ofMove: 0))
        #expect(recorder.observe(receiver: 9, control: "bench-0", value: value, at: 2 * ms) == .recorded(move: 0, latency: 2 * ms))
        #expect(recorder.observe(receiver: 9, control: "bench-1", value: value, at: 6 * ms) == .recorded(move: 0, latency: 1 * ms))
        #expect(recorder.observe(receiver: 3, control: "bench-1", value: value, at: 7 * ms) == .recorded(move: 0, latency: 2 * ms))
        #expect(recorder.delivered == 3)
    }
}
