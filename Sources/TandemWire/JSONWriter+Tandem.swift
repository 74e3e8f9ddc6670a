import TandemCore

// The pieces every server frame is built from, as `JSONWriter` methods so the
// server can compose its own bodies (history entries, API answers) from them.

extension JSONWriter {
    /// A control's whole state: `{"value":v}`, `{"index":i,"value":v}`,
    /// `{"lower":l,"upper":u}`, `{"red":r,"green":g,"blue":b,"hex":"#RRGGBB"}`
    /// or `{"value":v,"fraction":f}`.
    public mutating func append(state: ControlState) {
        switch state {
        case let .slider(value):
            append(raw: "{\"value\":")
            append(number: value)
        case let .snap(index, value):
            append(raw: "{\"index\":")
            append(int: index)
            append(raw: ",\"value\":")
            append(number: value)
        case let .range(range):
            append(raw: "{\"lower\":")
            append(int: range.lower)
            append(raw: ",\"upper\":")
            append(int: range.upper)
        case let .color(rgb):
            append(raw: "{\"red\":")
            append(number: rgb.red)
            append(raw: ",\"green\":")
            append(number: rgb.green)
            append(raw: ",\"blue\":")
            append(number: rgb.blue)
            append(raw: ",\"hex\":")
            append(string: rgb.hex)
        case let .gauge(value, fraction):
            append(raw: "{\"value\":")
            append(number: value)
            append(raw: ",\"fraction\":")
            append(number: fraction)
        }
        append(byte: ASCII.closeBrace)
    }

    /// `{"client":"c3","name":"Ann","color":"#E91E63"}`
    public mutating func append(peer: Peer) {
        append(raw: "{\"client\":")
        append(string: peer.client.rawValue)
        append(raw: ",\"name\":")
        append(string: peer.name)
        append(raw: ",\"color\":")
        append(string: peer.color)
        append(byte: ASCII.closeBrace)
    }

    /// `{"control":"blanks","thumb":"upper","by":"c3","phase":"move","state":{…}}`
    public mutating func append(gesture: GestureEntry) {
        append(raw: "{\"control\":")
        append(string: gesture.control)
        append(raw: ",\"thumb\":")
        append(string: gesture.thumb.rawValue)
        append(raw: ",\"by\":")
        append(string: gesture.by.rawValue)
        append(raw: ",\"phase\":")
        append(string: gesture.phase.rawValue)
        append(raw: ",\"state\":")
        append(state: gesture.state)
        append(byte: ASCII.closeBrace)
    }

    /// `{"control":"size","state":{…},"rev":43,"by":"c3"}`, `by` only when known.
    public mutating func append(change: ControlChange) {
        append(raw: "{\"control\":")
        append(string: change.control)
        append(raw: ",\"state\":")
        append(state: change.state)
        append(raw: ",\"rev\":")
        append(int: change.revision)
        if let by = change.by {
            append(raw: ",\"by\":")
            append(string: by.rawValue)
        }
        append(byte: ASCII.closeBrace)
    }

    /// A control as a welcome lists it: its schema fields, then `state`,
    /// `rev` and, when someone committed it, `by`. The schema part uses the
    /// names of a room file, so `SchemaDecoder` reads it back.
    public mutating func append(snapshot: ControlSnapshot) {
        let control = snapshot.control
        append(raw: "{\"id\":")
        append(string: control.id)
        append(raw: ",\"type\":")
        append(string: control.kind.typeName)
        append(raw: ",\"label\":")
        append(string: control.label)
        append(raw: ",\"commit\":")
        append(string: control.commit.rawValue)
        appendSchemaFields(of: control.kind)
        append(raw: ",\"state\":")
        append(state: snapshot.state)
        append(raw: ",\"rev\":")
        append(int: snapshot.revision)
        if let by = snapshot.by {
            append(raw: ",\"by\":")
            append(string: by.rawValue)
        }
        append(byte: ASCII.closeBrace)
    }

    /// The fields of a control's type, each preceded by a comma; an absent
    /// optional `step` is left out rather than written as `null`.
    private mutating func appendSchemaFields(of kind: ControlKind) {
        switch kind {
        case let .slider(math):
            append(raw: ",\"min\":")
            append(number: math.min)
            append(raw: ",\"max\":")
            append(number: math.max)
            if let step = math.step {
                append(raw: ",\"step\":")
                append(number: step)
            }
        case let .snap(spec):
            append(raw: ",\"values\":")
            append(array: spec.values) { $0.append(number: $1) }
            append(raw: ",\"layout\":")
            append(string: spec.layout.rawValue)
            append(raw: ",\"unit\":")
            append(string: spec.unit)
        case let .range(math):
            append(raw: ",\"scale\":[")
            append(int: math.scale.lowerBound)
            append(byte: ASCII.comma)
            append(int: math.scale.upperBound)
            append(raw: "],\"operable\":[")
            append(int: math.operable.lowerBound)
            append(byte: ASCII.comma)
            append(int: math.operable.upperBound)
            append(raw: "],\"minGap\":")
            append(int: math.minGap)
        case let .color(step):
            if let step {
                append(raw: ",\"step\":")
                append(number: step)
            }
        case let .gauge(math):
            append(raw: ",\"min\":")
            append(number: math.min)
            append(raw: ",\"max\":")
            append(number: math.max)
        }
    }
}
