import TandemCore
import TandemWire

/// An OSC writer's operation as the protocol's JSON message, as a WebSocket
/// client would send it: in a cluster, members' messages travel to the room's
/// owner as the bytes the client sent, and the owner decodes them.
enum OSCRequestJSON {
    /// `{"type":"set",...}` and the like for the operations `OSCIn` makes
    /// (`set`, `step`, `undo`, `redo`, `reset`); `nil` for any other.
    static func encode(seq: Int, _ operation: Operation) -> [UInt8]? {
        var out = JSONWriter()
        switch operation {
        case let .set(control, thumb, value):
            start(&out, "set", seq: seq, control: control, thumb: thumb)
            out.append(raw: ",\"value\":")
            switch value {
            case let .number(n): out.append(number: n)
            case let .text(text): out.append(string: text)
            case let .flag(on): out.append(bool: on)
            case let .point(x, y):
                // An xy pad's axes; an absent one stays as it is.
                out.append(raw: "{")
                if let x {
                    out.append(key: "x")
                    out.append(number: x)
                }
                if let y {
                    if x != nil { out.append(raw: ",") }
                    out.append(key: "y")
                    out.append(number: y)
                }
                out.append(raw: "}")
            case .other:
                return nil
            }
        case let .step(control, thumb, by, byY):
            start(&out, "step", seq: seq, control: control, thumb: thumb)
            out.append(raw: ",\"by\":")
            if let byY {
                out.append(raw: "[")
                out.append(number: by)
                out.append(raw: ",")
                out.append(number: byY)
                out.append(raw: "]")
            } else {
                out.append(number: by)
            }
        case .undo:
            out.append(raw: "{\"type\":\"undo\",\"seq\":")
            out.append(int: seq)
        case .redo:
            out.append(raw: "{\"type\":\"redo\",\"seq\":")
            out.append(int: seq)
        case let .reset(control):
            out.append(raw: "{\"type\":\"reset\",\"seq\":")
            out.append(int: seq)
            if let control {
                out.append(raw: ",\"control\":")
                out.append(string: control)
            }
        case .drag, .batch, .claim, .release:
            return nil // not OSC's: a claim needs a connection that can leave
        }
        out.append(raw: "}")
        return out.bytes
    }

    private static func start(_ out: inout JSONWriter, _ type: StaticString, seq: Int, control: String, thumb: String?) {
        out.append(raw: "{\"type\":\"")
        out.append(raw: type)
        out.append(raw: "\",\"seq\":")
        out.append(int: seq)
        out.append(raw: ",\"control\":")
        out.append(string: control)
        if let thumb {
            out.append(raw: ",\"thumb\":")
            out.append(string: thumb)
        }
    }
}
