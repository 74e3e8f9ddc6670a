/// The rules of the kinds added in v1.1 (toggle, xy pad, button) that the
/// older kinds do not need: two-number pointers and steps, boolean and object
/// values, and presses.
extension Room {
    /// Refuses a pointer the thumb cannot take: a number that is not finite,
    /// an `at` pair on a one-axis thumb (the wire said "at must be a number"
    /// before pads existed, and still does) or a single `at` on a pad.
    func check(_ pointer: Pointer?, of thumb: Thumb) throws {
        switch pointer {
        case let .dx(dx, dy):
            guard dx.isFinite else { throw Refusal(.badValue, "dx must be a finite number") }
            guard dy.isFinite else { throw Refusal(.badValue, "dy must be a finite number") }
        case let .at(x, y):
            if thumb == .xy {
                guard let y else { throw Refusal(.badValue, "an xy pad's at is [fx, fy], not a number") }
                guard x.isFinite, y.isFinite else { throw Refusal(.badValue, "at must be two finite numbers") }
            } else {
                guard y == nil else { throw Refusal(.badValue, "at must be a number, not array") }
                guard x.isFinite else { throw Refusal(.badValue, "at must be a finite number") }
            }
        case nil:
            break
        }
    }

    /// A step's whole numbers: `by` for one-axis thumbs, `[nx, ny]` for an xy
    /// pad; a button takes any positive whole `by` as one press.
    func steps(_ by: Double, _ byY: Double?, of control: Control) throws -> (Int, Int) {
        func whole(_ n: Double) -> Bool { n.isFinite && n == n.rounded() && abs(n) <= 1e15 }
        switch control.kind {
        case .xy:
            guard let byY else { throw Refusal(.badValue, "an xy pad steps by [nx, ny], not one number") }
            guard whole(by), whole(byY) else { throw Refusal(.badValue, "by must be two whole numbers") }
            return (Int(by), Int(byY))
        default:
            guard byY == nil else { throw Refusal(.badValue, "by must be a number, not array") }
            guard whole(by) else { throw Refusal(.badValue, "by must be a whole number") }
            if case .button = control.kind, by < 1 {
                throw Refusal(.badValue, "a button is pressed by a step of 1 (any positive whole by), not \(Int(by))")
            }
            return (Int(by), 0)
        }
    }

    /// What a `set` of a toggle or an xy pad commits: a toggle takes `true`,
    /// `false`, 1 or 0; a pad `{"x": X, "y": Y}` (an absent axis stays).
    func kindSetting(_ control: Control, _ value: SetValue, against context: ControlState) throws -> ControlState {
        switch (control.kind, value) {
        case let (.toggle, .flag(on)):
            return .toggle(on: on)
        case let (.toggle, .number(n)) where n == 0 || n == 1:
            return .toggle(on: n == 1)
        case (.toggle, _):
            throw Refusal(.badValue, "a toggle is set with true or false (or 1 or 0), not \(value.description)")
        case let (.xy, .point(x, y)):
            guard x?.isFinite ?? true, y?.isFinite ?? true else { throw Refusal(.badValue, "x and y must be finite numbers") }
            return control.settingXY(x: x, y: y, against: context)
        default:
            throw Refusal(.badValue, "an xy pad is set with {\"x\": X, \"y\": Y}, not \(value.description)")
        }
    }

    /// A `set` of a button: `true` is a press, anything else is refused.
    mutating func press(_ c: Int, _ value: SetValue, from client: ClientID, into effects: inout [Effect]) throws {
        guard value == .flag(true) else {
            throw Refusal(.badValue, "a button is pressed with set true (or step by 1), not \(value.description)")
        }
        try press(c, by: 1, from: client, into: &effects)
    }

    /// One press of button `c` (however large `by`): a commit and a new
    /// revision even though nothing else changes, never recorded as an edit
    /// (a press cannot be taken back).
    mutating func press(_ c: Int, by _: Int, from client: ClientID, into effects: inout [Effect]) throws {
        guard case let .button(presses) = committed[c] else { return }
        commit(c, ButtonMath.pressed(presses), by: client, into: &effects)
    }
}

extension SetValue {
    /// The value as a refusal quotes it: a number or a flag as written, else its JSON type.
    var description: String {
        switch self {
        case let .number(n): "\(n)"
        case let .flag(b): "\(b)"
        case let .text(s): "the string '\(s)'"
        default: typeName
        }
    }
}
