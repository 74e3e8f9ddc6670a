import TandemCore
import TandemWire

/// One thumb a dragger drives, and how its moves are numbered so that every
/// receiver can tell which move a previewed value reflects.
///
/// A track is a slider or one channel of a colour picker, on its grid of
/// `positions` steps (a thumb without a grid gets 1,000,000). The dragger
/// begins its gesture where the thumb is (its committed position `a`, the
/// anchor: `dx` is the translation since the gesture began). Move `n` (from
/// 0) sends `dx = (p - a) / positions` with `p = n mod positions + 1`; the
/// server previews grid position `p`. (Moves could name `at` instead, but a
/// browser sends `dx`, so the bench does too.)
///
/// A receiver turns a position `p` back into the largest `n` with that code
/// that is not later than the last move the schedule has made due by the
/// receipt (no state can reflect a move not yet sent). The code repeats every
/// `positions` moves: for the bench room's sliders (1,000,000 positions) that
/// is 4.6 hours at 60 Hz; for the demo room's `gain` (100 positions) 1.7 s and
/// its colour channels (255) 4.25 s, so there a latency above that period
/// would be read as a later move's.
public struct MoveTrack: Sendable, Hashable {
    /// The control's id.
    public var control: String
    /// The control's index in its room.
    public var controlIndex: Int
    /// The thumb moved.
    public var thumb: Thumb
    /// Whether messages name the thumb. The protocol lets a one-thumb control
    /// leave it out, but naming it always costs a few bytes and lets the bench
    /// drive servers that insist on it.
    public var namesThumb: Bool
    /// The grid: values are `math.value(at: p / positions)`.
    public var math: SliderMath
    public var positions: Int

    /// Positions given to a thumb without a grid.
    public static let continuousPositions = 1_000_000
    /// Thumbs with fewer positions repeat too soon to tell moves apart, and are not used.
    public static let fewestPositions = 50

    public init(control: String, controlIndex: Int, thumb: Thumb, namesThumb: Bool, math: SliderMath) {
        self.control = control
        self.controlIndex = controlIndex
        self.thumb = thumb
        self.namesThumb = namesThumb
        self.math = math
        positions = math.stepCount ?? Self.continuousPositions
    }

    /// The thumbs of `schema` a bench can drag, in room order: every slider and
    /// every colour channel with at least `fewestPositions` positions. Snap
    /// sliders, ranges (their thumbs push each other) and gauges are left out.
    public static func tracks(in schema: RoomSchema) -> [MoveTrack] {
        var tracks: [MoveTrack] = []
        for (index, control) in schema.controls.enumerated() {
            switch control.kind {
            case let .slider(math):
                tracks.append(MoveTrack(control: control.id, controlIndex: index, thumb: .value, namesThumb: true, math: math))
            case let .color(step):
                for thumb in [Thumb.red, .green, .blue] {
                    tracks.append(MoveTrack(control: control.id, controlIndex: index, thumb: thumb, namesThumb: true,
                                            math: ColorMath.channelMath(step: step)))
                }
            default:
                continue
            }
        }
        return tracks.filter { $0.positions >= fewestPositions && $0.math.span > 0 }
    }

    /// The grid position move `n` previews: `n mod positions + 1`.
    public func position(ofMove n: Int) -> Int {
        precondition(n >= 0, "moves are numbered from 0")
        return n % positions + 1
    }

    /// The `dx` move `n` sends in a gesture begun at grid position `anchor`.
    public func dx(ofMove n: Int, anchor: Int = 0) -> Double {
        Double(position(ofMove: n) - anchor) / Double(positions)
    }

    /// The value the server previews for move `n` in a gesture begun at `anchor`.
    public func value(ofMove n: Int, anchor: Int = 0) -> Double {
        math.value(at: Double(anchor) / Double(positions) + dx(ofMove: n, anchor: anchor))
    }

    /// The grid position of this thumb in `state`, when the state is one of
    /// this control's and the thumb's value lies on the grid (within a
    /// thousandth of a step); `nil` otherwise.
    public func position(in state: ControlState) -> Int? {
        guard let value = state.value(of: thumb), value.isFinite, math.span > 0 else { return nil }
        let exact = (value - math.min) / math.span * Double(positions)
        let rounded = exact.rounded(.toNearestOrAwayFromZero)
        guard abs(exact - rounded) <= 1e-3, rounded >= 0, rounded <= Double(positions) else { return nil }
        return Int(rounded)
    }

    /// The move a previewed position reflects, given that move `latest` is the
    /// newest that could have been sent; `nil` for position 0 (the anchor),
    /// a position off the track, or when no move up to `latest` has that code.
    public func move(fromPosition position: Int, latest: Int) -> Int? {
        guard latest >= 0, position >= 1, position <= positions else { return nil }
        let residue = position - 1
        let latestResidue = latest % positions
        let n = latest - latestResidue + residue - (residue > latestResidue ? positions : 0)
        return n >= 0 ? n : nil
    }

    // MARK: - Messages

    /// `{"type":"drag","seq":S,"control":C[,"thumb":T],"phase":"begin"}`
    public func beginMessage(seq: Int) -> [UInt8] {
        message(seq: seq, phase: "begin", tail: "}")
    }

    /// `{"type":"drag","seq":S,"control":C[,"thumb":T],"phase":"move","dx":D}` for move `n`
    /// of a gesture begun at grid position `anchor`.
    public func moveMessage(seq: Int, move n: Int, anchor: Int = 0) -> [UInt8] {
        var writer = header(seq: seq, phase: "move")
        writer.append(raw: ",\"dx\":")
        writer.append(number: dx(ofMove: n, anchor: anchor))
        writer.append(byte: UInt8(ascii: "}"))
        return writer.bytes
    }

    /// `{"type":"drag","seq":S,"control":C[,"thumb":T],"phase":"end"}`
    public func endMessage(seq: Int) -> [UInt8] {
        message(seq: seq, phase: "end", tail: "}")
    }

    private func message(seq: Int, phase: StaticString, tail: StaticString) -> [UInt8] {
        var writer = header(seq: seq, phase: phase)
        writer.append(raw: tail)
        return writer.bytes
    }

    private func header(seq: Int, phase: StaticString) -> JSONWriter {
        var writer = JSONWriter(capacity: 112)
        writer.append(raw: "{\"type\":\"drag\",\"seq\":")
        writer.append(int: seq)
        writer.append(raw: ",\"control\":")
        writer.append(string: control)
        if namesThumb {
            writer.append(raw: ",\"thumb\":")
            writer.append(string: thumb.rawValue)
        }
        writer.append(raw: ",\"phase\":\"")
        writer.append(raw: phase)
        writer.append(raw: "\"")
        return writer
    }
}
