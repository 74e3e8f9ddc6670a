import TandemCore

// The pieces every server frame is built from, as `JSONWriter` methods so the
// server can compose its own bodies (history entries, API answers) from them.

extension JSONWriter {
    /// A control's whole state: `{"value":v}`, `{"index":i,"value":v}`,
    /// `{"lower":l,"upper":u}`, `{"red":r,"green":g,"blue":b,"hex":"#RRGGBB"}`
    /// `{"value":v,"fraction":f}`, `{"on":true}`, `{"x":x,"y":y}` or `{"presses":n}`.
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
        case let .toggle(on):
            append(raw: "{\"on\":")
            append(bool: on)
        case let .xy(x, y):
            append(raw: "{\"x\":")
            append(number: x)
            append(raw: ",\"y\":")
            append(number: y)
        case let .button(presses):
            append(raw: "{\"presses\":")
            append(int: presses)
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
        if let focus = peer.focus {
            append(raw: ",\"focus\":")
            append(string: focus)
        }
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

    /// `{"control":"size","state":{…},"rev":43,"by":"c3","claim":"c5"}`, `by`
    /// only when known, `claim` only while someone claims the control.
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
        if let claim = change.claim {
            append(raw: ",\"claim\":")
            append(string: claim.rawValue)
        }
        append(byte: ASCII.closeBrace)
    }

    /// A batch note: `{"rev":50,"by":"c3","cause":"preset","preset":"Warm","controls":["cutoff","gain"]}`;
    /// a restore has `"cause":"restore","from":1402`, a reset `"cause":"reset"`
    /// and, for one control's, `"control":"cutoff"`.
    public mutating func append(batch: BatchNote) {
        append(raw: "{\"rev\":")
        append(int: batch.revision)
        append(raw: ",\"by\":")
        append(string: batch.by.rawValue)
        switch batch.cause {
        case let .preset(name):
            append(raw: ",\"cause\":\"preset\",\"preset\":")
            append(string: name)
        case let .restore(revision):
            append(raw: ",\"cause\":\"restore\",\"from\":")
            append(int: revision)
        case let .reset(control):
            append(raw: ",\"cause\":\"reset\"")
            if let control {
                append(raw: ",\"control\":")
                append(string: control)
            }
        }
        append(raw: ",\"controls\":")
        append(array: batch.controls) { $0.append(string: $1) }
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
        if let group = control.group {
            append(raw: ",\"group\":")
            append(string: group)
        }
        if let description = control.description {
            append(raw: ",\"description\":")
            append(string: description)
        }
        // `series` only where it differs from the kind's default, so a v1 room's welcome is unchanged.
        var isGauge = false
        if case .gauge = control.kind { isGauge = true }
        if control.keepsSeries != isGauge {
            append(raw: control.keepsSeries ? ",\"series\":true" : ",\"series\":false")
        }
        appendSchemaFields(of: control.kind)
        if !control.unit.isEmpty {
            append(raw: ",\"unit\":")
            append(string: control.unit)
        }
        append(raw: ",\"state\":")
        append(state: snapshot.state)
        append(raw: ",\"rev\":")
        append(int: snapshot.revision)
        if let by = snapshot.by {
            append(raw: ",\"by\":")
            append(string: by.rawValue)
        }
        if let claim = snapshot.claim {
            append(raw: ",\"claim\":")
            append(string: claim.rawValue)
        }
        append(byte: ASCII.closeBrace)
    }

    /// The fields of a control's type, each preceded by a comma; an absent
    /// optional field (`step`, `digits`, `labels`) and a default (`scale`
    /// linear) are left out rather than written as `null`, so that the rooms
    /// of v1 are described byte for byte as before.
    private mutating func appendSchemaFields(of kind: ControlKind) {
        switch kind {
        case let .slider(math):
            appendSliderFields(math)
        case let .snap(spec):
            append(raw: ",\"values\":")
            append(array: spec.values) { $0.append(number: $1) }
            append(raw: ",\"layout\":")
            append(string: spec.layout.rawValue)
            append(raw: ",\"unit\":")
            append(string: spec.unit)
            if let labels = spec.labels {
                append(raw: ",\"labels\":")
                append(array: labels) { $0.append(string: $1) }
            }
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
        case let .xy(spec):
            append(raw: ",\"x\":")
            append(axis: spec.x)
            append(raw: ",\"y\":")
            append(axis: spec.y)
        case .toggle, .button:
            break
        }
    }

    /// `,"min":…,"max":…` then `step`, `"scale":"log"` and `digits` when they apply.
    private mutating func appendSliderFields(_ math: SliderMath) {
        append(raw: ",\"min\":")
        append(number: math.min)
        append(raw: ",\"max\":")
        append(number: math.max)
        if let step = math.step {
            append(raw: ",\"step\":")
            append(number: step)
        }
        if math.scale == .log {
            append(raw: ",\"scale\":\"log\"")
        }
        if let digits = math.digits {
            append(raw: ",\"digits\":")
            append(int: digits)
        }
    }

    /// An xy pad's axis: `{"min":…,"max":…}` with `step`, `scale`, `digits`, `unit`, `label` when they apply.
    private mutating func append(axis: Axis) {
        let start = bytes.count
        appendSliderFields(axis.math)
        bytes[start] = ASCII.openBrace // the leading comma becomes the object's brace
        if !axis.unit.isEmpty {
            append(raw: ",\"unit\":")
            append(string: axis.unit)
        }
        if !axis.label.isEmpty {
            append(raw: ",\"label\":")
            append(string: axis.label)
        }
        append(byte: ASCII.closeBrace)
    }
}
