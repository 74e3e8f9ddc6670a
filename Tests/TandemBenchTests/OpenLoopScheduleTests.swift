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

    let benchSlider = MoveTrack(control: "bench-0", controlIndex: 0, thumb: .value, namesThumb: false,
                                math: SliderMath(min: 0, max: 1_000_000, step: 1))

    @Test("move codes on the bench slider: position n mod 1,000,000 + 1, dx = position/1e6, and back")
    func moveCode() {
        let track = benchSlider
        #expect(track.positions == 1_000_000)
        #expect(track.position(ofMove: 0) == 1)
        #expect(track.position(ofMove: 999_999) == 1_000_000)
        #expect(track.position(ofMove: 1_000_000) == 1)
        #expect(track.dx(ofMove: 41) == 0.000042)
        // The server snaps dx on the step-1 grid; the receiver recovers n.
        for n in [0, 1, 2, 41, 123_456, 999_998, 999_999, 1_000_000, 2_345_678] {
            let previewed = track.math.value(at: 0 + track.dx(ofMove: n))
            let position = track.position(in: .slider(value: previewed))
            #expect(position == track.position(ofMove: n))
            #expect(track.move(fromPosition: position!, latest: n) == n)
            #expect(track.move(fromPosition: position!, latest: n + 5) == n)
        }
        // Not a move: the begin's position 0, off-grid, out of range; a code no move up to latest has.
        #expect(track.move(fromPosition: 0, latest: 10) == nil)
        #expect(track.position(in: .slider(value: 3.5)) == nil)
        #expect(track.position(in: .slider(value: 1_000_001)) == nil)
        #expect(track.move(fromPosition: 1_000_001, latest: 10) == nil)
        #expect(track.move(fromPosition: 20, latest: 10) == nil)
        // After a wrap the latest matching move wins.
        #expect(track.move(fromPosition: 5, latest: 1_000_010) == 1_000_004)
        #expect(track.move(fromPosition: 999_999, latest: 1_000_010) == 999_998)
    }

    @Test("the demo room offers gain and the three colour channels, each move landing on its grid")
    func demoTracks() throws {
        let tracks = MoveTrack.tracks(in: RoomSchema.demo)
        #expect(tracks.map { "\($0.control).\($0.thumb.rawValue)" } == ["color.red", "color.green", "color.blue", "gain.value"]
                || tracks.map { "\($0.control).\($0.thumb.rawValue)" } == ["gain.value", "color.red", "color.green", "color.blue"])
        let gain = try #require(tracks.first { $0.control == "gain" })
        #expect(gain.positions == 100 && gain.namesThumb)
        let red = try #require(tracks.first { $0.thumb == .red })
        #expect(red.positions == 255 && red.namesThumb)
        // What the server's math previews for each move decodes back to the move,
        // wherever the gesture began (gain starts at 0.5, red at 0x33).
        for n in [0, 1, 54, 99, 100, 254, 255, 1_000] {
            let g = gain.math.value(at: 0.5 + gain.dx(ofMove: n, anchor: 50))
            #expect(g == gain.value(ofMove: n, anchor: 50))
            #expect(gain.move(fromPosition: gain.position(in: .slider(value: g))!, latest: n + 3) == n)
            let r = red.math.value(at: 0.2 + red.dx(ofMove: n, anchor: 51))
            let colour = ControlState.color(RGB(red: r, green: 0.4, blue: 0.6))
            #expect(red.move(fromPosition: red.position(in: colour)!, latest: n) == n)
        }
        // The drag messages name the thumb, even a slider's only one.
        let move = try JSONParser.parse(red.moveMessage(seq: 2, move: 0))
        #expect(move["thumb"] == "red" && move["phase"] == "move" && move["dx"] == .number(1.0 / 255))
        let back = try JSONParser.parse(red.moveMessage(seq: 2, move: 0, anchor: 51))
        #expect(back["dx"] == .number(-50.0 / 255))
        let begin = try JSONParser.parse(gain.beginMessage(seq: 1))
        #expect(begin["thumb"] == "value" && begin["at"] == nil && begin["control"] == "gain")
        let end = try JSONParser.parse(gain.endMessage(seq: 3))
        #expect(end["phase"] == "end" && end["seq"] == 3)
    }

    @Test("snap sliders, ranges and gauges are not offered to draggers")
    func onlySlidersAndColours() throws {
        let tracks = MoveTrack.tracks(in: RoomSchema.demo)
        #expect(!tracks.contains { ["size", "blanks", "bpm"].contains($0.control) })
    }

    @Test("the bench room is a valid room of step-1 sliders, and the drag messages decode")
    func benchRoomAndMessages() throws {
        let body = MoveCode.roomJSON(id: "bench", sliders: 3)
        let room = try RoomSchema(validating: try SchemaDecoder.room(body))
        #expect(room.controls.map(\.id) == ["bench-0", "bench-1", "bench-2"])
        #expect(room.controls[0].kind == .slider(SliderMath(min: 0, max: 1_000_000, step: 1)))
        #expect(room.controls[0].commit == .release)
        #expect(MoveTrack.tracks(in: room).map(\.control) == ["bench-0", "bench-1", "bench-2"])
        let begin = try JSONParser.parse(benchSlider.beginMessage(seq: 1))
        #expect(begin["phase"] == "begin" && begin["at"] == nil && begin["seq"] == 1)
        let move = try JSONParser.parse(benchSlider.moveMessage(seq: 2, move: 41))
        #expect(move["phase"] == "move" && move["dx"] == .number(0.000042) && move["control"] == "bench-0")
    }

    @Test("the recorder maps observed positions to moves and records each once per receiver")
    func recorder() {
        var recorder = LatencyRecorder()
        let schedule = OpenLoopSchedule(start: 1_000 * ms, hz: 50) // every 20 ms
        let t = recorder.addTrack(benchSlider, schedule: schedule)
        #expect(recorder.tracks == [benchSlider])
        // Move 3 (due 1060 ms) seen by receiver 0 at 1065 ms: 5 ms.
        let p3 = benchSlider.position(ofMove: 3)
        #expect(recorder.observe(receiver: 0, track: t, position: p3, at: 1_065 * ms) == .recorded(move: 3, latency: 5 * ms))
        // Receiver 1 sees it later: 12 ms.
        #expect(recorder.observe(receiver: 1, track: t, position: p3, at: 1_072 * ms) == .recorded(move: 3, latency: 12 * ms))
        // Receiver 0 sees it again (the commit at the end): not recorded twice.
        #expect(recorder.observe(receiver: 0, track: t, state: .slider(value: Double(p3)), at: 1_080 * ms) == .repeated(move: 3))
        // Conflation skipped moves 4–6; move 7 (due 1140 ms) arrives at 1141 ms.
        let p7 = benchSlider.position(ofMove: 7)
        #expect(recorder.observe(receiver: 0, track: t, position: p7, at: 1_141 * ms) == .recorded(move: 7, latency: 1 * ms))
        // An older move after a newer one is not recorded.
        #expect(recorder.observe(receiver: 0, track: t, position: p3, at: 1_150 * ms) == .repeated(move: 3))
        // Not moves: the begin's 0, an unknown track, another kind.
        #expect(recorder.observe(receiver: 0, track: t, position: 0, at: 1_150 * ms) == .notAMove)
        #expect(recorder.observe(receiver: 0, track: 5, position: p7, at: 1_150 * ms) == .notAMove)
        #expect(recorder.observe(receiver: 0, track: t, state: .gauge(value: 1, fraction: 0), at: 1_150 * ms) == .notAMove)
        // A position whose move is not yet due cannot be a move of this run.
        #expect(recorder.observe(receiver: 2, track: t, position: 100, at: 1_150 * ms) == .notAMove)
        #expect(recorder.delivered == 3 && recorder.repeated == 2 && recorder.unrelated == 4)
        #expect(recorder.total.count == 3)
        #expect(recorder.total.min == 1 * ms && recorder.total.max == 12 * ms)
        let interval = recorder.takeInterval()
        #expect(interval.count == 3)
        #expect(recorder.interval.count == 0 && recorder.total.count == 3)
    }

    @Test("each dragger has its own schedule, each receiver its own memory of moves, each group its own histogram")
    func severalMovers() {
        var recorder = LatencyRecorder(groups: 2)
        var second = benchSlider
        second.control = "bench-1"
        second.controlIndex = 1
        let a = recorder.addTrack(benchSlider, schedule: OpenLoopSchedule(start: 0, hz: 60))
        let b = recorder.addTrack(second, schedule: OpenLoopSchedule(start: 5 * ms, hz: 60))
        #expect(recorder.schedule(ofTrack: b).start == 5 * ms)
        let p = benchSlider.position(ofMove: 0)
        #expect(recorder.observe(receiver: 9, track: a, position: p, at: 2 * ms) == .recorded(move: 0, latency: 2 * ms))
        #expect(recorder.observe(receiver: 9, track: b, position: p, at: 6 * ms) == .recorded(move: 0, latency: 1 * ms))
        #expect(recorder.observe(receiver: 3, track: b, position: p, at: 7 * ms, group: 1) == .recorded(move: 0, latency: 2 * ms))
        #expect(recorder.delivered == 3)
        #expect(recorder.groups[0].count == 2 && recorder.groups[1].count == 1)
        #expect(recorder.groups[1].max == 2 * ms)
        recorder.resetHistograms()
        #expect(recorder.total.count == 0 && recorder.groups[1].count == 0 && recorder.delivered == 3)
    }

    @Test("on a short track a receiver that lags a whole period gets the oldest candidate, flagged ambiguous")
    func ambiguousMoves() throws {
        let gain = try #require(MoveTrack.tracks(in: RoomSchema.demo).first { $0.control == "gain" })
        #expect(gain.positions == 100)
        var recorder = LatencyRecorder()
        let schedule = OpenLoopSchedule(start: 0, hz: 100) // move n due at n*10 ms
        let t = recorder.addTrack(gain, schedule: schedule)
        // Receiver 0 sees move 5 at 60 ms: unambiguous.
        #expect(recorder.observe(receiver: 0, track: t, position: gain.position(ofMove: 5), at: 60 * ms) == .recorded(move: 5, latency: 10 * ms))
        // Then, 2.5 s later, move 6's position: moves 6, 106 and 206 share it and
        // all fell due since move 5; moves arrive in order, so it is move 6, 2.44 s late.
        let late = recorder.observe(receiver: 0, track: t, position: gain.position(ofMove: 6), at: 2_500 * ms)
        #expect(late == .recorded(move: 6, latency: 2_440 * ms))
        #expect(recorder.ambiguous == 1)
        // A receiver keeping up is never ambiguous, across the wrap too.
        for n in [0, 50, 99, 100, 101, 150, 199, 200] {
            _ = recorder.observe(receiver: 1, track: t, position: gain.position(ofMove: n), at: UInt64(n) * 10 * ms + 3 * ms)
        }
        #expect(recorder.ambiguous == 1)
        #expect(recorder.delivered == 2 + 8)
    }
}
