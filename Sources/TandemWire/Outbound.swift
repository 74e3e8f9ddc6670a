import TandemCore

/// Encodes the server's frames and API bodies, each call returning the
/// whole frame's bytes. Updates go through `UpdateEncoder`, which shares the
/// bytes of each change between recipients.
public enum OutboundEncoder {
    /// `{"type":"welcome","protocol":1,"client":"c12","role":"editor","room":"demo","title":"Demo","rev":42,"controls":[…],"peers":[…],"gestures":[…],"present":N}`.
    ///
    /// With `welcome.client` nil, `type`, `protocol` and `client` are left
    /// out: that is the body of the HTTP API's `GET /api/rooms/{room}`.
    /// `peers` and `gestures` are always present, empty or not, so a newcomer
    /// can rely on them.
    public static func welcome(_ welcome: Welcome) -> [UInt8] {
        var w = JSONWriter(capacity: 512 + 256 * welcome.controls.count + 64 * (welcome.peers.count + welcome.gestures.count))
        if let client = welcome.client {
            w.append(raw: "{\"type\":\"welcome\",\"protocol\":1,\"client\":")
            w.append(string: client.rawValue)
            if let role = welcome.role {
                w.append(raw: ",\"role\":")
                w.append(string: role.rawValue)
            }
            w.append(raw: ",\"room\":")
        } else {
            w.append(raw: "{\"room\":")
        }
        w.append(string: welcome.room)
        w.append(raw: ",\"title\":")
        w.append(string: welcome.title)
        if welcome.layout != .cards { // left out at the default, so a v1 room's welcome stays as it was
            w.append(raw: ",\"layout\":")
            w.append(string: welcome.layout.rawValue)
        }
        w.append(raw: ",\"rev\":")
        w.append(int: welcome.revision)
        w.append(raw: ",\"controls\":")
        w.append(array: welcome.controls) { $0.append(snapshot: $1) }
        w.append(raw: ",\"peers\":")
        w.append(array: welcome.peers) { $0.append(peer: $1) }
        w.append(raw: ",\"gestures\":")
        w.append(array: welcome.gestures) { $0.append(gesture: $1) }
        w.append(raw: ",\"present\":")
        w.append(int: welcome.present)
        w.append(byte: ASCII.closeBrace)
        return w.bytes
    }

    /// `{"type":"reject","seq":19,"code":"busy","message":"…","holder":"c3"}`.
    ///
    /// `seq` is written as `null` when it is 0 or less: the server passes a
    /// refusal whose `seq` could not be read as seq 0. `holder` only when present.
    public static func reject(_ reject: Reject) -> [UInt8] {
        var w = JSONWriter(capacity: 96 + reject.message.utf8.count)
        w.append(raw: "{\"type\":\"reject\",\"seq\":")
        if reject.seq > 0 { w.append(int: reject.seq) } else { w.appendNull() }
        w.append(raw: ",\"code\":")
        w.append(string: reject.code.rawValue)
        w.append(raw: ",\"message\":")
        w.append(string: reject.message)
        if let holder = reject.holder {
            w.append(raw: ",\"holder\":")
            w.append(string: holder.rawValue)
        }
        w.append(byte: ASCII.closeBrace)
        return w.bytes
    }

    /// A control's state alone, as the write API answers: see `JSONWriter.append(state:)`.
    public static func state(_ state: ControlState) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.append(state: state)
        return w.bytes
    }

    /// A control as a welcome lists it: see `JSONWriter.append(snapshot:)`.
    public static func control(_ snapshot: ControlSnapshot) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.append(snapshot: snapshot)
        return w.bytes
    }
}
