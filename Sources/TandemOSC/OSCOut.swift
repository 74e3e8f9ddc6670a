import TandemCore

/// A room's states as OSC messages (the table in docs/osc.md).
public enum OSCOut {
    /// The messages that describe `state` of `control` in room `room`, one per thumb or channel:
    ///
    /// | kind | messages |
    /// |---|---|
    /// | slider (linear or log), gauge | `/ROOM/CONTROL v` |
    /// | snap | `/ROOM/CONTROL value`, `/ROOM/CONTROL/index i` |
    /// | range | `/ROOM/CONTROL/lower l`, `/ROOM/CONTROL/upper u` (ints) |
    /// | colour | `/ROOM/CONTROL/hex "#RRGGBB"`, `…/red r`, `…/green g`, `…/blue b` |
    /// | toggle | `/ROOM/CONTROL 0` or `1` (int) |
    /// | xy pad | `/ROOM/CONTROL/x x`, `/ROOM/CONTROL/y y` |
    /// | button | `/ROOM/CONTROL presses` (int, saturated at 2³¹−1) |
    ///
    /// Values are `numbers` (floats unless asked for doubles); indexes, range
    /// thumbs, a toggle and presses are ints. A state of another kind than the
    /// control's gives no message.
    public static func messages(room: String, control: Control, state: ControlState,
                                numbers: OSCNumberWidth = .float) -> [OSCMessage] {
        let base = "/\(room)/\(control.id)"
        switch (control.kind, state) {
        case let (.slider, .slider(value)), let (.gauge, .gauge(value, _)):
            return [OSCMessage(base, [numbers.argument(value)])]
        case let (.snap, .snap(index, value)):
            return [OSCMessage(base, [numbers.argument(value)]),
                    OSCMessage(base + "/index", [int(index)])]
        case let (.range, .range(range)):
            return [OSCMessage(base + "/lower", [int(range.lower)]),
                    OSCMessage(base + "/upper", [int(range.upper)])]
        case let (.color, .color(rgb)):
            // The hex first: fed back, the channels after it keep their exact levels.
            return [OSCMessage(base + "/hex", [.string(rgb.hex)])]
                + ColorChannel.allCases.map { OSCMessage(base + "/" + $0.rawValue, [numbers.argument(rgb[$0])]) }
        case let (.toggle, .toggle(on)):
            return [OSCMessage(base, [.int(on ? 1 : 0)])]
        case let (.xy, .xy(x, y)):
            return [OSCMessage(base + "/x", [numbers.argument(x)]),
                    OSCMessage(base + "/y", [numbers.argument(y)])]
        case let (.button, .button(presses)):
            return [OSCMessage(base, [int(presses)])]
        default:
            return []
        }
    }

    /// The messages of the one thumb a live preview moves, from `messages`: a range
    /// thumb's own (`…/lower` or `…/upper`), a colour channel's and the `hex` it
    /// changes, and every message of a control with one thumb (a snap's value and
    /// index, an xy pad's two axes).
    public static func messages(room: String, control: Control, thumb: Thumb, state: ControlState,
                                numbers: OSCNumberWidth = .float) -> [OSCMessage] {
        let all = messages(room: room, control: control, state: state, numbers: numbers)
        let base = "/\(room)/\(control.id)/"
        switch thumb {
        case .lower, .upper:
            return all.filter { $0.address == base + thumb.rawValue }
        case .red, .green, .blue:
            return all.filter { $0.address == base + thumb.rawValue || $0.address == base + "hex" }
        default:
            return all
        }
    }

    /// The full dump of a room: every control's messages in schema order
    /// (`states[i]` is the state of `schema.controls[i]`), then `/ROOM/dump/end revision`.
    public static func dump(room: String, schema: RoomSchema, states: [ControlState], revision: Int,
                            numbers: OSCNumberWidth = .float) -> [OSCMessage] {
        var out: [OSCMessage] = []
        for (control, state) in zip(schema.controls, states) {
            out += messages(room: room, control: control, state: state, numbers: numbers)
        }
        out.append(OSCMessage("/\(room)/dump/end", [int(revision)]))
        return out
    }

    /// A whole number as an OSC int, saturated to Int32.
    static func int(_ n: Int) -> OSCArgument { .int(Int32(clamping: n)) }
}
