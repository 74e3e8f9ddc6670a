import TandemCore

/// The members of a client message that protocol v1 reads, gathered in one
/// pass over the object (later duplicates overwrite earlier ones), so the
/// checks cost the same whatever else a client puts in a frame.
struct MessageFields {
    var type: JSON?
    var seq: JSON?
    var control: JSON?
    var thumbField: JSON?
    var phase: JSON?
    var dx: JSON?
    var dy: JSON?
    var at: JSON?
    var value: JSON?
    var by: JSON?
    var token: JSON?

    init(_ members: [JSONMember]) {
        for member in members {
            switch member.key {
            case "type": type = member.value
            case "seq": seq = member.value
            case "control": control = member.value
            case "thumb": thumbField = member.value
            case "phase": phase = member.value
            case "dx": dx = member.value
            case "dy": dy = member.value
            case "at": at = member.value
            case "value": value = member.value
            case "by": by = member.value
            case "token": token = member.value
            default: continue // forward compatibility: unknown keys are ignored
            }
        }
    }

    /// Rules 2–6 of `MessageDecoder`; `seq` is the usable seq, if any.
    func decode(seq: Int?) -> Result<ClientMessage, WireRefusal> {
        guard case let .string(type) = type, ["drag", "set", "step", "undo", "redo", "reset", "claim", "release"].contains(type) else {
            return .failure(WireRefusal(.badMessage, "type must be \"drag\", \"set\", \"step\", \"undo\", \"redo\", \"reset\", \"claim\", \"release\", \"auth\", \"preset\" or \"restore\""))
        }
        guard let seq else {
            return .failure(WireRefusal(.badMessage, "seq must be a whole number from 1 to 2^53"))
        }
        switch type {
        case "undo": return .success(ClientMessage(seq: seq, .undo))
        case "redo": return .success(ClientMessage(seq: seq, .redo))
        case "reset":
            switch control {
            case nil, .null?: return .success(ClientMessage(seq: seq, .reset(control: nil)))
            case let .string(control)?: return .success(ClientMessage(seq: seq, .reset(control: control)))
            default: return .failure(WireRefusal(.badMessage, "control must be a string"))
            }
        default: break
        }
        guard case let .string(control) = control else {
            return .failure(WireRefusal(.badMessage, "control must be a string"))
        }
        if type == "claim" { return .success(ClientMessage(seq: seq, .claim(control: control))) }
        if type == "release" { return .success(ClientMessage(seq: seq, .release(control: control))) }
        let operation = thumb().flatMap { thumb -> Result<Operation, WireRefusal> in
            switch type {
            case "drag": drag(control: control, thumb: thumb)
            case "set": set(control: control, thumb: thumb)
            default: step(control: control, thumb: thumb)
            }
        }
        return operation.map { ClientMessage(seq: seq, $0) }
    }

    /// The optional thumb name; `null` counts as absent.
    func thumb() -> Result<String?, WireRefusal> {
        switch thumbField {
        case nil, .null?: .success(nil)
        case let .string(name)?: .success(name)
        default: .failure(WireRefusal(.badMessage, "thumb must be a string"))
        }
    }

    func drag(control: String, thumb: String?) -> Result<Operation, WireRefusal> {
        guard case let .string(name) = phase, let phase = DragPhase(rawValue: name) else {
            return .failure(WireRefusal(.badMessage, "phase must be \"begin\", \"move\", \"end\" or \"cancel\""))
        }
        if (dx != nil || dy != nil) && at != nil {
            return .failure(WireRefusal(.badMessage, dx != nil ? "give dx or at, not both" : "give dy or at, not both"))
        }
        if phase == .cancel && (dx != nil || dy != nil || at != nil) {
            return .failure(WireRefusal(.badMessage, dy != nil && dx == nil && at == nil ? "cancel takes no dy" : "cancel takes no dx or at"))
        }
        var pointer: Pointer?
        if dx != nil || dy != nil {
            // An xy pad's drag carries dy too; either absent counts as 0.
            var x = 0.0, y = 0.0
            if let dx {
                guard case let .number(n) = dx else { return .failure(WireRefusal(.badValue, "dx must be a number, not \(dx.typeName)")) }
                x = n
            }
            if let dy {
                guard case let .number(n) = dy else { return .failure(WireRefusal(.badValue, "dy must be a number, not \(dy.typeName)")) }
                y = n
            }
            pointer = .dx(x, dy: y)
        } else if let at {
            switch at {
            case let .number(x):
                pointer = .at(x)
            case let .array(pair):
                // An xy pad's `[fx, fy]`; the room refuses a pair on a one-axis control.
                guard pair.count == 2, case let .number(x) = pair[0], case let .number(y) = pair[1] else {
                    return .failure(WireRefusal(.badValue, "at must be a number or [fx, fy]"))
                }
                pointer = .at(x, y: y)
            default:
                return .failure(WireRefusal(.badValue, "at must be a number, not \(at.typeName)"))
            }
        }
        return .success(.drag(control: control, thumb: thumb, phase: phase, pointer: pointer))
    }

    func set(control: String, thumb: String?) -> Result<Operation, WireRefusal> {
        let setValue: SetValue
        switch value {
        case nil: return .failure(WireRefusal(.badMessage, "set needs a value"))
        case let .number(x)?: setValue = .number(x)
        case let .string(s)?: setValue = .text(s)
        case let .bool(b)?: setValue = .flag(b)
        case let .object(members)? where members.allSatisfy({ ["x", "y"].contains($0.key) && $0.value.numberValue != nil }):
            setValue = .point(x: value?["x"]?.numberValue, y: value?["y"]?.numberValue)
        case let other?: setValue = .other(other.typeName)
        }
        return .success(.set(control: control, thumb: thumb, value: setValue))
    }

    func step(control: String, thumb: String?) -> Result<Operation, WireRefusal> {
        guard let by else { return .failure(WireRefusal(.badMessage, "step needs by")) }
        switch by {
        case let .number(n):
            return .success(.step(control: control, thumb: thumb, by: n))
        case let .array(pair) where pair.count == 2:
            // An xy pad's `[nx, ny]`; the room refuses a pair on a one-axis control.
            guard case let .number(nx) = pair[0], case let .number(ny) = pair[1] else {
                return .failure(WireRefusal(.badValue, "by must be a number or [nx, ny]"))
            }
            return .success(.step(control: control, thumb: thumb, by: nx, byY: ny))
        default:
            return .failure(WireRefusal(.badValue, "by must be a number, not \(by.typeName)"))
        }
    }
}
