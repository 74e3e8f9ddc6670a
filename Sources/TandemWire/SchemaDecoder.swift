import TandemCore

/// Reads room definitions — room files and admin API bodies — from JSON into
/// `RoomDefinition`s for `RoomSchema(validating:)`, which checks the values.
///
/// This layer checks only JSON types and field names, and reports them as the
/// core reports everything else: a `SchemaError` naming the control (its id
/// when it is a string that `RoomSchema.isValidID` accepts, else `#N`, its
/// position from 1; `nil` for room-level fields) and the field (`min`,
/// `values`, `state.upper`, `controls`), with `.wrongType(expected:)` ("a
/// number", "a string", "a list of numbers", "[lo, hi]", "an object", "a list
/// of controls") or `.unknownField`. Unknown fields are errors, not ignored:
/// a typo in a room file should not silently drop a setting.
///
/// What a welcome (or `GET /api/rooms/{room}`) adds is accepted and ignored,
/// so such a body can be fed back as a room definition: at room level `type`,
/// `protocol`, `client`, `role`, `rev`, `peers`, `gestures`, `present`, `since`, and `room` as the id when
/// there is no `id`; per control `rev` and `by`; in a state `fraction`.
/// A member whose value is JSON `null` counts as absent. A repeated key counts
/// once, its last occurrence. A UTF-8 byte order mark before a room file is skipped.
public enum SchemaDecoder {
    /// A room definition from JSON: `{"id":"demo","title":"Demo","controls":[{"id":…,"type":…,…,"state":{…}}]}`.
    ///
    /// A parse error is `SchemaError(control: nil, field: "(json)", problem: .invalidState("not JSON: <reason> at byte <offset>"))`.
    public static func room(_ bytes: some Collection<UInt8>) throws(SchemaError) -> RoomDefinition {
        var body = Array(bytes)
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body.removeFirst(3) }
        let json: JSON
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw SchemaError(control: nil, field: "(json)", problem: .invalidState("not JSON: \(error)"))
        }
        return try room(json)
    }

    /// A room definition from parsed JSON. A document that is not an object is
    /// `SchemaError(control: nil, field: "(room)", problem: .wrongType(expected: "an object"))`.
    public static func room(_ json: JSON) throws(SchemaError) -> RoomDefinition {
        guard case let .object(members) = json else {
            throw SchemaError(control: nil, field: "(room)", problem: .wrongType(expected: "an object"))
        }
        var definition = RoomDefinition()
        var alias: String?
        for member in members where member.value != .null {
            let field = Field(control: nil, name: member.key, value: member.value)
            switch member.key {
            case "id": definition.id = try field.string()
            case "room": alias = try field.string()
            case "title": definition.title = try field.string()
            case "layout": definition.layout = try field.string()
            case "controls":
                guard case let .array(elements) = member.value else { throw field.wrong("a list of controls") }
                var controls: [ControlDefinition] = []
                for (k, element) in elements.enumerated() {
                    controls.append(try control(element, position: k + 1))
                }
                definition.controls = controls
            case "type", "protocol", "client", "role", "rev", "peers", "gestures", "present", "since":
                continue // a welcome's own fields
            default:
                throw SchemaError(control: nil, field: member.key, problem: .unknownField)
            }
        }
        if definition.id == nil { definition.id = alias }
        return definition
    }

    /// One control definition; `position` (from 1) names it in errors when its id is unusable.
    public static func control(_ json: JSON, position: Int) throws(SchemaError) -> ControlDefinition {
        guard case let .object(members) = json else {
            throw SchemaError(control: "#\(position)", field: "controls", problem: .wrongType(expected: "an object"))
        }
        // The name errors use is settled first, so an error in a field that
        // comes before `id` still names the control by its id.
        let id = members.last { $0.key == "id" }?.value
        let name = if case let .string(s)? = id, RoomSchema.isValidID(s) { s } else { "#\(position)" }
        var definition = ControlDefinition()
        for member in members where member.value != .null {
            let field = Field(control: name, name: member.key, value: member.value)
            switch member.key {
            case "id": definition.id = try field.string()
            case "type": definition.type = try field.string()
            case "label": definition.label = try field.string()
            case "commit": definition.commit = try field.string()
            case "min": definition.min = try field.number()
            case "max": definition.max = try field.number()
            case "step": definition.step = try field.number()
            case "values": definition.values = try field.numbers("a list of numbers")
            case "layout": definition.layout = try field.string()
            case "unit": definition.unit = try field.string()
            case "scale":
                // A range's `[lo, hi]`, or a slider's `"linear"` / `"log"`.
                if case let .string(name) = member.value { definition.scaleName = name } else {
                    definition.scale = try field.numbers("[lo, hi]")
                }
            case "digits": definition.digits = try field.number()
            case "labels": definition.labels = try field.strings()
            case "x": definition.x = try axis(field)
            case "y": definition.y = try axis(field)
            case "group": definition.group = try field.string()
            case "description": definition.description = try field.string()
            case "series": definition.series = try field.bool()
            case "operable": definition.operable = try field.numbers("[lo, hi]")
            case "minGap": definition.minGap = try field.number()
            case "state": definition.state = try state(field)
            case "rev", "by", "claim":
                continue // a welcome's own fields
            default:
                throw SchemaError(control: name, field: member.key, problem: .unknownField)
            }
        }
        return definition
    }

    private static func state(_ field: Field) throws(SchemaError) -> StateDefinition {
        guard case let .object(members) = field.value else { throw field.wrong("an object") }
        var state = StateDefinition()
        for member in members where member.value != .null {
            let inner = Field(control: field.control, name: "state.\(member.key)", value: member.value)
            switch member.key {
            case "value": state.value = try inner.number()
            case "index": state.index = try inner.number()
            case "lower": state.lower = try inner.number()
            case "upper": state.upper = try inner.number()
            case "red": state.red = try inner.number()
            case "green": state.green = try inner.number()
            case "blue": state.blue = try inner.number()
            case "hex": state.hex = try inner.string()
            case "on": state.on = try inner.bool()
            case "x": state.x = try inner.number()
            case "y": state.y = try inner.number()
            case "presses": state.presses = try inner.number()
            case "fraction":
                continue // a gauge's derived value, as a welcome carries it
            default:
                throw SchemaError(control: field.control, field: inner.name, problem: .unknownField)
            }
        }
        return state
    }
}

extension SchemaDecoder {
    /// An xy pad's axis: `{"min","max","step","scale","digits","unit","label"}`,
    /// errors naming `x.min`, `y.scale`…
    private static func axis(_ field: Field) throws(SchemaError) -> AxisDefinition {
        guard case let .object(members) = field.value else { throw field.wrong("an object") }
        var axis = AxisDefinition()
        for member in members where member.value != .null {
            let inner = Field(control: field.control, name: "\(field.name).\(member.key)", value: member.value)
            switch member.key {
            case "min": axis.min = try inner.number()
            case "max": axis.max = try inner.number()
            case "step": axis.step = try inner.number()
            case "scale": axis.scale = try inner.string()
            case "digits": axis.digits = try inner.number()
            case "unit": axis.unit = try inner.string()
            case "label": axis.label = try inner.string()
            default:
                throw SchemaError(control: field.control, field: inner.name, problem: .unknownField)
            }
        }
        return axis
    }
}

/// One member being read, with what an error about it must name.
private struct Field {
    var control: String?
    var name: String
    var value: JSON

    func wrong(_ expected: String) -> SchemaError {
        SchemaError(control: control, field: name, problem: .wrongType(expected: expected))
    }

    func string() throws(SchemaError) -> String {
        guard case let .string(s) = value else { throw wrong("a string") }
        return s
    }

    func number() throws(SchemaError) -> Double {
        guard case let .number(x) = value else { throw wrong("a number") }
        return x
    }

    func bool() throws(SchemaError) -> Bool {
        guard case let .bool(b) = value else { throw wrong("true or false") }
        return b
    }

    func strings() throws(SchemaError) -> [String] {
        guard case let .array(elements) = value else { throw wrong("a list of strings") }
        var strings: [String] = []
        for element in elements {
            guard case let .string(s) = element else { throw wrong("a list of strings") }
            strings.append(s)
        }
        return strings
    }

    func numbers(_ expected: String) throws(SchemaError) -> [Double] {
        guard case let .array(elements) = value else { throw wrong(expected) }
        var numbers: [Double] = []
        numbers.reserveCapacity(elements.count)
        for element in elements {
            guard case let .number(x) = element else { throw wrong(expected) }
            numbers.append(x)
        }
        return numbers
    }
}
