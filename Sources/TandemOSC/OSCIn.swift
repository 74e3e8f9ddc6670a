import TandemCore

/// Incoming OSC messages as the room operations they ask for (the table in docs/osc.md).
///
/// Every address part must be usable as an id (`A-Z a-z 0-9 _ . -`): room and
/// control ids can hold nothing else, so no address is percent-encoded, and an
/// OSC pattern (`*`, `?`, `[…]`, `{…}`) or any other character is refused as an unknown address.
public enum OSCIn {
    /// What a message asks for: an operation on the room (`undo`, `redo` and
    /// `reset` from `/ROOM/undo`, `/ROOM/redo`, `/ROOM/reset` and
    /// `/ROOM/CONTROL/reset` included), a dump of its state
    /// (`/ROOM/dump`), or the sender's name for its later writes (`/ROOM/name "Ann"`).
    public enum Request: Sendable, Hashable {
        case operation(Operation)
        case dump
        case name(String)
    }

    /// The request of an incoming message for the room of `schema`, or why it is dropped.
    ///
    /// Numbers may come as float, int or double. The operations are the wire's
    /// `set` and `step` with the values a JSON message would carry, so the room
    /// applies its own rules (clamps, holds, the steps' limits) after this.
    public static func request(_ message: OSCMessage, schema: RoomSchema) -> Result<Request, OSCDrop> {
        Result { () throws(OSCDrop) in try decode(message, schema: schema) }
    }

    /// The room an address names (`/ROOM/...`, at least one part after the room), if any.
    public static func room(of address: String) -> String? {
        guard let parts = parts(of: address), parts.count >= 2 else { return nil }
        return parts[0]
    }

    /// The parts of an address, or `nil` when it is not `/part/part…` of usable ids.
    static func parts(of address: String) -> [String]? {
        guard address.utf8.first == UInt8(ascii: "/") else { return nil }
        let parts = address.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard parts.allSatisfy(RoomSchema.isValidID) else { return nil }
        return parts
    }

    // MARK: decoding

    private static func decode(_ message: OSCMessage, schema: RoomSchema) throws(OSCDrop) -> Request {
        // The address as the drop sentences quote it: cut, so a long one cannot swell the log.
        let address = message.address.count > 96 ? message.address.prefix(95) + "…" : message.address
        guard let parts = parts(of: message.address) else {
            throw OSCDrop(.unknownAddress, "'\(address)' is not an address of /room/control parts (letters, digits, _ . - only; no patterns)")
        }
        guard parts[0] == schema.id else {
            throw OSCDrop(.unknownAddress, "'\(address)' is not in room '\(schema.id)'")
        }
        guard parts.count >= 2 else {
            throw OSCDrop(.unknownAddress, "'\(address)' names no control")
        }
        let args = message.arguments
        // The room's own addresses; a control of the same id keeps the forms these do not use.
        if parts.count == 2, parts[1] == "dump", schema.index(of: "dump") == nil || args.isEmpty {
            return .dump
        }
        if parts.count == 2, parts[1] == "undo" || parts[1] == "redo", schema.index(of: parts[1]) == nil {
            return .operation(parts[1] == "undo" ? .undo : .redo) // arguments ignored, like a dump's
        }
        if parts.count == 2, parts[1] == "reset", schema.index(of: "reset") == nil {
            return .operation(.reset(control: nil)) // the whole room; arguments ignored
        }
        if parts.count == 2, parts[1] == "name", schema.index(of: "name") == nil || args.first?.number == nil {
            try count(args, 1, address)
            guard case let .string(raw) = args[0] else {
                throw OSCDrop(.wrongType, "\(address) takes a string (s), not \(args[0].typeTag)")
            }
            guard raw.unicodeScalars.contains(where: isVisible) else {
                throw OSCDrop(.badValue, "\(address): a name needs a visible character")
            }
            return .name(DisplayName.clean(raw))
        }
        guard let c = schema.index(of: parts[1]) else {
            throw OSCDrop(.unknownControl, "no control '\(parts[1])' in room '\(schema.id)'")
        }
        let control = schema.controls[c]
        var path = Array(parts.dropFirst(2))
        if path == ["reset"] {
            return .operation(.reset(control: control.id)) // arguments ignored
        }
        if path.last == "step" {
            path.removeLast()
            return .operation(try step(control, path, args, address))
        }
        return .operation(try set(control, path, args, address))
    }

    /// A `set` of the thumb or channel `path` names.
    private static func set(_ control: Control, _ path: [String], _ args: [OSCArgument], _ address: String) throws(OSCDrop) -> Operation {
        let id = control.id
        guard path.count <= 1 else { throw unknownThumb(control, path, address) }
        switch (control.kind, path.first) {
        case (.slider, nil), (.gauge, nil):
            return .set(control: id, thumb: nil, value: .number(try number(args, address)))
        case (.snap, nil):
            return .set(control: id, thumb: nil, value: .number(try number(args, address)))
        case let (.snap(spec), "index"?):
            let i = try whole(args, address)
            guard let index = Int(exactly: i), spec.values.indices.contains(index) else {
                throw OSCDrop(.badValue, "\(address): index \(i) is not one of 0…\(spec.values.count - 1)")
            }
            // The wire's `set` of a snap takes a value: the one at the index.
            return .set(control: id, thumb: nil, value: .number(spec.values[index]))
        case let (.range, name?) where name == "lower" || name == "upper",
             let (.color, name?) where name == "red" || name == "green" || name == "blue":
            return .set(control: id, thumb: name, value: .number(try number(args, address)))
        case (.color, "hex"?):
            try count(args, 1, address)
            guard case let .string(text) = args[0] else {
                throw OSCDrop(.wrongType, "\(address) takes a string (s) \"#RRGGBB\", not \(args[0].typeTag)")
            }
            guard ColorMath.parseHex(text) != nil else {
                throw OSCDrop(.badValue, "\(address): a colour is \"#RRGGBB\", not '\(text)'")
            }
            return .set(control: id, thumb: nil, value: .text(text))
        case (.toggle, nil):
            let n = try number(args, address)
            guard n == 0 || n == 1 else { throw OSCDrop(.badValue, "\(address): a toggle is 0 or 1, not \(n)") }
            return .set(control: id, thumb: nil, value: .flag(n == 1))
        case (.xy, nil):
            try count(args, 2, address)
            return .set(control: id, thumb: nil, value: .point(x: try finite(args[0], address), y: try finite(args[1], address)))
        case (.xy, "x"?):
            return .set(control: id, thumb: nil, value: .point(x: try number(args, address), y: nil))
        case (.xy, "y"?):
            return .set(control: id, thumb: nil, value: .point(x: nil, y: try number(args, address)))
        case (.button, nil):
            if args.isEmpty { return .set(control: id, thumb: nil, value: .flag(true)) }
            guard try number(args, address) != 0 else {
                throw OSCDrop(.release, "\(address): 0 is a release; a button is pressed by no argument or a non-zero number")
            }
            return .set(control: id, thumb: nil, value: .flag(true))
        default:
            throw unknownThumb(control, path, address)
        }
    }

    /// A `step` (`…/step n`) of the thumb or channel `path` names.
    private static func step(_ control: Control, _ path: [String], _ args: [OSCArgument], _ address: String) throws(OSCDrop) -> Operation {
        let id = control.id
        guard path.count <= 1 else { throw unknownThumb(control, path, address) }
        switch (control.kind, path.first) {
        case (.gauge, _):
            throw OSCDrop(.readOnly, "\(address): '\(id)' is a gauge: it is set, never stepped")
        case (.slider, nil), (.snap, nil), (.snap, "index"?), (.toggle, nil):
            return .step(control: id, thumb: nil, by: try whole(args, address))
        case let (.range, name?) where name == "lower" || name == "upper",
             let (.color, name?) where name == "red" || name == "green" || name == "blue":
            return .step(control: id, thumb: name, by: try whole(args, address))
        case (.xy, nil):
            try count(args, 2, address)
            return .step(control: id, thumb: nil, by: try whole(args[0], address), byY: try whole(args[1], address))
        case (.xy, "x"?):
            return .step(control: id, thumb: nil, by: try whole(args, address), byY: 0)
        case (.xy, "y"?):
            return .step(control: id, thumb: nil, by: 0, byY: try whole(args, address))
        case (.button, nil):
            let n = try whole(args, address)
            guard n >= 1 else { throw OSCDrop(.badValue, "\(address): a button is pressed by a step of 1 or more, not \(n)") }
            return .step(control: id, thumb: nil, by: n)
        default:
            throw unknownThumb(control, path, address)
        }
    }

    // MARK: arguments

    /// Whether a name keeps `scalar`: not white space, and not a character `DisplayName` removes
    /// (a name of none of these would become "Guest", which nobody sent).
    private static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.properties.isWhitespace && DisplayName.clean(String(scalar)) != DisplayName.fallback
    }

    private static func unknownThumb(_ control: Control, _ path: [String], _ address: String) -> OSCDrop {
        let forms = addresses(of: control).joined(separator: ", ")
        if path.isEmpty {
            return OSCDrop(.unknownThumb, "\(address): '\(control.id)' needs a thumb: \(forms)")
        }
        return OSCDrop(.unknownThumb, "\(address): '\(control.id)' has no '\(path.joined(separator: "/"))' (it takes \(forms))")
    }

    /// The address tails a control takes, for a drop's sentence.
    private static func addresses(of control: Control) -> [String] {
        let base = "/" + control.id
        switch control.kind {
        case .slider, .gauge, .toggle, .button: return [base]
        case .snap: return [base, base + "/index"]
        case .range: return [base + "/lower", base + "/upper"]
        case .color: return ["red", "green", "blue", "hex"].map { base + "/" + $0 }
        case .xy: return [base, base + "/x", base + "/y"]
        }
    }

    private static func count(_ args: [OSCArgument], _ n: Int, _ address: String) throws(OSCDrop) {
        guard args.count == n else {
            throw OSCDrop(.wrongCount, "\(address) takes \(n) argument\(n == 1 ? "" : "s"), not \(args.count)")
        }
    }

    /// The one finite number of a message.
    private static func number(_ args: [OSCArgument], _ address: String) throws(OSCDrop) -> Double {
        try count(args, 1, address)
        return try finite(args[0], address)
    }

    /// The one whole number of a step (at most 10¹⁵ either way, as the room takes).
    private static func whole(_ args: [OSCArgument], _ address: String) throws(OSCDrop) -> Double {
        try count(args, 1, address)
        return try whole(args[0], address)
    }

    private static func finite(_ arg: OSCArgument, _ address: String) throws(OSCDrop) -> Double {
        guard let n = arg.number else {
            throw OSCDrop(.wrongType, "\(address) takes a number (f, i or d), not \(arg.typeTag)")
        }
        guard n.isFinite else { throw OSCDrop(.badValue, "\(address): \(n) is not a finite number") }
        return n
    }

    private static func whole(_ arg: OSCArgument, _ address: String) throws(OSCDrop) -> Double {
        let n = try finite(arg, address)
        guard n == n.rounded(), abs(n) <= 1e15 else {
            throw OSCDrop(.badValue, "\(address): \(n) is not a whole number")
        }
        return n
    }
}
