import TandemCore
import TandemWire

extension RoomServiceBase {
    /// The 200 of a `PUT`: the control's committed state and revision.
    func putAnswer(_ host: RoomHost, control: String) -> HTTPAnswer {
        guard let index = host.room.schema.index(of: control) else { return .json(404, problem("unknown_control", control)) }
        var out = JSONWriter()
        out.append(raw: "{\"control\":")
        out.append(string: control)
        out.append(raw: ",\"state\":")
        out.append(state: host.room.committed[index])
        out.append(raw: ",\"rev\":")
        out.append(int: host.room.revisions[index])
        out.append(raw: "}")
        return .json(200, out.bytes)
    }

    /// The answer to a whole room's reset: the room's revision after it and the controls it changed (none: no revision).
    func resetAnswer(revision: Int, changed: [String]) -> HTTPAnswer {
        .json(200, JSON.object([
            JSONMember("rev", .number(Double(revision))),
            JSONMember("changed", .array(changed.map(JSON.string))),
        ]).bytes)
    }
}
