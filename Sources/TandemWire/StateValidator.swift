import TandemCore

/// Something a server said that breaks the protocol: the control it concerns
/// (`nil` for the frame as a whole) and why, in words.
public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
    public var control: String?
    public var reason: String

    public init(control: String?, reason: String) {
        self.control = control
        self.reason = reason
    }

    public var description: String { "\(control ?? "(frame)"): \(reason)" }
}

/// One client's view of a room's committed states: the welcome's states with
/// every `changes` entry since laid over them. Previews (`gestures`) are not
/// part of it. Indexed like `RoomSchema.controls`.
public struct ClientView: Sendable, Hashable {
    public internal(set) var states: [ControlState]
    /// Each control's revision as last heard.
    public internal(set) var revisions: [Int]

    public init(states: [ControlState], revisions: [Int]) {
        self.states = states
        self.revisions = revisions
    }
}

/// Checks what a server sends against a room's schema: every state in a
/// welcome, in `changes` and in `gestures` must be a legal state of its
/// control (`Control.isValid`: in bounds, on the grid, snapped, `minGap`
/// kept; plus, for a colour, `hex` matching the channels), and at the end a
/// client's merged view must equal the server's `GET /api/rooms/{room}`.
public struct StateValidator: Sendable {
    public let schema: RoomSchema

    public init(schema: RoomSchema) {
        self.schema = schema
    }

    /// The validator of the room a welcome (or `GET /api/rooms/{room}` body) describes.
    public init(welcome bytes: some Collection<UInt8>) throws(SchemaError) {
        let definition = try SchemaDecoder.room(bytes)
        self.schema = try RoomSchema(validating: definition)
    }

    /// The same, from parsed JSON.
    public init(welcome json: JSON) throws(SchemaError) {
        let definition = try SchemaDecoder.room(json)
        self.schema = try RoomSchema(validating: definition)
    }

    /// The state `json` says control `id` is in, if it is a legal one.
    public func check(control id: String, state json: JSON) -> Result<ControlState, Violation> {
        guard let index = schema.index(of: id) else {
            return .failure(Violation(control: id, reason: "unknown control"))
        }
        return check(schema.controls[index], state: json)
    }

    /// Every violation in an `update` frame's `changes` and `gestures`.
    public func violations(inUpdate json: JSON) -> [Violation] {
        decode(update: json).violations
    }

    /// A client's view from its welcome, and whatever in the welcome is illegal.
    /// A control the welcome leaves out keeps its schema's initial state at revision 0.
    public func view(fromWelcome json: JSON) -> (ClientView, [Violation]) {
        var view = ClientView(states: schema.controls.map(\.initial), revisions: schema.controls.map { _ in 0 })
        var violations: [Violation] = []
        guard let controls = json["controls"]?.arrayValue else {
            return (view, [Violation(control: nil, reason: "welcome without a controls list")])
        }
        var seen = Set<String>()
        for entry in controls {
            guard let id = entry["id"]?.stringValue else {
                violations.append(Violation(control: nil, reason: "welcome control without an id"))
                continue
            }
            guard let index = schema.index(of: id) else {
                violations.append(Violation(control: id, reason: "unknown control"))
                continue
            }
            seen.insert(id)
            guard let stateJSON = entry["state"] else {
                violations.append(Violation(control: id, reason: "welcome control without a state"))
                continue
            }
            switch check(schema.controls[index], state: stateJSON) {
            case let .success(state):
                view.states[index] = state
                view.revisions[index] = revision(entry) ?? 0
            case let .failure(violation):
                violations.append(violation)
            }
        }
        if json["since"] == nil {
            for control in schema.controls where !seen.contains(control.id) {
                violations.append(Violation(control: control.id, reason: "missing from the welcome"))
            }
        }
        var welcomeGestures = DecodedUpdate()
        gestures(json["gestures"], into: &welcomeGestures)
        return (view, violations + welcomeGestures.violations)
    }

    /// Checks an `update` frame and lays its `changes` over `view`.
    public func apply(update json: JSON, to view: inout ClientView) -> [Violation] {
        let update = decode(update: json)
        return update.violations + apply(update, to: &view)
    }

    /// Lays a decoded update's legal `changes` over `view`: a revision must
    /// never go back, and one revision means one state. Returns what broke that.
    /// (The update's own violations are not repeated here.)
    public func apply(_ update: DecodedUpdate, to view: inout ClientView) -> [Violation] {
        var violations: [Violation] = []
        for change in update.changes {
            let known = view.revisions[change.index]
            let id = schema.controls[change.index].id
            if change.revision < known {
                violations.append(Violation(control: id, reason: "revision went back from \(known) to \(change.revision)"))
            } else if change.revision == known, view.states[change.index] != change.state {
                violations.append(Violation(control: id, reason: "a different state at the same revision \(change.revision)"))
            } else {
                view.states[change.index] = change.state
                view.revisions[change.index] = change.revision
            }
        }
        return violations
    }

    /// Where a client's view differs from the server's own account of the
    /// room, `GET /api/rooms/{room}`: each control's state and revision.
    public func compare(_ view: ClientView, withSnapshot json: JSON) -> [Violation] {
        guard let controls = json["controls"]?.arrayValue else {
            return [Violation(control: nil, reason: "snapshot without a controls list")]
        }
        var violations: [Violation] = []
        var seen = Set<String>()
        for entry in controls {
            guard let id = entry["id"]?.stringValue, let index = schema.index(of: id) else {
                violations.append(Violation(control: entry["id"]?.stringValue, reason: "snapshot has a control the schema does not"))
                continue
            }
            seen.insert(id)
            guard let stateJSON = entry["state"] else {
                violations.append(Violation(control: id, reason: "snapshot control without a state"))
                continue
            }
            switch check(schema.controls[index], state: stateJSON) {
            case let .success(server):
                let mine = view.states[index]
                if mine != server {
                    violations.append(Violation(control: id, reason: "client has \(text(mine)), server has \(text(server))"))
                }
                if let rev = revision(entry), rev != view.revisions[index] {
                    violations.append(Violation(control: id, reason: "client at revision \(view.revisions[index]), server at \(rev)"))
                }
            case let .failure(violation):
                violations.append(Violation(control: id, reason: "snapshot: \(violation.reason)"))
            }
        }
        for control in schema.controls where !seen.contains(control.id) {
            violations.append(Violation(control: control.id, reason: "missing from the snapshot"))
        }
        return violations
    }

    // MARK: - The checks

    private func check(_ control: Control, state json: JSON) -> Result<ControlState, Violation> {
        let wire: WireState
        do {
            wire = try StateDecoder.decode(json, as: control.kind)
        } catch {
            return .failure(Violation(control: control.id, reason: error.reason))
        }
        if let reason = illegality(of: wire, in: control) {
            return .failure(Violation(control: control.id, reason: "\(reason): \(String(decoding: json.bytes, as: UTF8.self))"))
        }
        return .success(wire.state)
    }

    /// Why a decoded state is not legal for `control`, or `nil` when it is.
    private func illegality(of wire: WireState, in control: Control) -> String? {
        if case let .color(rgb) = wire.state, let hex = wire.hex, hex != rgb.hex {
            return "hex \(hex) does not match the channels (\(rgb.hex))"
        }
        guard !control.isValid(wire.state) else { return nil }
        switch (control.kind, wire.state) {
        case let (.slider(math), .slider(value)):
            if !value.isFinite || value < math.min || value > math.max {
                return "value outside [\(format(math.min)), \(format(math.max))]"
            }
            return "value off the step grid"
        case let (.snap(spec), .snap(index, _)):
            if !spec.values.indices.contains(index) { return "index outside 0...\(spec.values.count - 1)" }
            return "value is not values[\(index)] = \(format(spec.values[index]))"
        case let (.range(math), .range(range)):
            if range.lower + math.minGap > range.upper { return "upper - lower is below minGap \(math.minGap)" }
            return "a thumb outside operable [\(math.operable.lowerBound), \(math.operable.upperBound)]"
        case (.color, .color):
            return "a channel outside [0, 1] or off the step grid"
        case let (.gauge(math), .gauge(value, _)):
            if !value.isFinite { return "value is not finite" }
            return "fraction is not \(format(math.fraction(of: value)))"
        default:
            return "not a \(control.kind.typeName) state"
        }
    }

    /// Checks an `update` frame once, whoever received it: every state must be
    /// legal. The legal entries come back decoded, for `apply(_:to:)` and for
    /// the latency recorder.
    public func decode(update json: JSON) -> DecodedUpdate {
        var update = DecodedUpdate()
        guard json["type"]?.stringValue == "update" else {
            update.violations.append(Violation(control: nil, reason: "not an update frame"))
            return update
        }
        if let changes = json["changes"] {
            guard let entries = changes.arrayValue else {
                update.violations.append(Violation(control: nil, reason: "changes is \(changes.typeName), not an array"))
                return update
            }
            for entry in entries {
                guard let id = entry["control"]?.stringValue else {
                    update.violations.append(Violation(control: nil, reason: "change without a control id"))
                    continue
                }
                guard let index = schema.index(of: id) else {
                    update.violations.append(Violation(control: id, reason: "unknown control"))
                    continue
                }
                guard let stateJSON = entry["state"] else {
                    update.violations.append(Violation(control: id, reason: "change without a state"))
                    continue
                }
                guard let rev = revision(entry) else {
                    update.violations.append(Violation(control: id, reason: "change without a whole-number rev"))
                    continue
                }
                switch check(schema.controls[index], state: stateJSON) {
                case let .success(state):
                    update.changes.append(DecodedUpdate.Change(index: index, state: state, revision: rev))
                case let .failure(violation):
                    update.violations.append(violation)
                }
            }
        }
        gestures(json["gestures"], into: &update)
        return update
    }

    private func gestures(_ json: JSON?, into update: inout DecodedUpdate) {
        guard let json else { return }
        guard let entries = json.arrayValue else {
            update.violations.append(Violation(control: nil, reason: "gestures is \(json.typeName), not an array"))
            return
        }
        for entry in entries {
            guard let id = entry["control"]?.stringValue else {
                update.violations.append(Violation(control: nil, reason: "gesture without a control id"))
                continue
            }
            guard let index = schema.index(of: id) else {
                update.violations.append(Violation(control: id, reason: "unknown control"))
                continue
            }
            let control = schema.controls[index]
            guard let thumbName = entry["thumb"]?.stringValue, let thumb = Thumb(rawValue: thumbName), control.has(thumb) else {
                update.violations.append(Violation(control: id, reason: "gesture on a thumb the control does not have"))
                continue
            }
            guard let phase = entry["phase"]?.stringValue, ["begin", "move", "end", "cancel"].contains(phase) else {
                update.violations.append(Violation(control: id, reason: "gesture without a known phase"))
                continue
            }
            guard let stateJSON = entry["state"] else {
                update.violations.append(Violation(control: id, reason: "gesture without a state"))
                continue
            }
            switch check(control, state: stateJSON) {
            case let .success(state):
                update.gestures.append(DecodedUpdate.Gesture(index: index, thumb: thumb, state: state))
            case let .failure(violation):
                update.violations.append(violation)
            }
        }
    }

    private func revision(_ entry: JSON) -> Int? {
        guard let x = entry["rev"]?.numberValue, x >= 0, x <= 9_007_199_254_740_992 else { return nil }
        return Int(exactly: x)
    }

    private func text(_ state: ControlState) -> String {
        var writer = JSONWriter()
        writer.append(state: state)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// An `update` frame checked against the schema once (`StateValidator.decode(update:)`):
/// what is illegal in it, and its legal entries.
public struct DecodedUpdate: Sendable, Hashable {
    public struct Change: Sendable, Hashable {
        public var index: Int
        public var state: ControlState
        public var revision: Int
    }

    public struct Gesture: Sendable, Hashable {
        public var index: Int
        public var thumb: Thumb
        public var state: ControlState
    }

    public var violations: [Violation] = []
    public var changes: [Change] = []
    public var gestures: [Gesture] = []

    public init() {}
}
