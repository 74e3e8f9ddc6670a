/// A validated room: its id, title and controls, in order.
public struct RoomSchema: Sendable, Hashable {
    /// Unique on a server; `[A-Za-z0-9_.-]`, 1–64 characters.
    public let id: String
    /// What people read at the top of the page; defaults to the id.
    public let title: String
    /// How the web client lays the room out until a person picks otherwise.
    public let layout: RoomLayout
    /// The controls, in the order they are shown.
    public let controls: [Control]

    /// A room from a definition, or the first thing wrong with it (`caps`
    /// included: too many controls, a title or label too long in characters
    /// or in bytes). Shown texts are cleaned first (`ShownText.clean`).
    public init(validating raw: RoomDefinition, caps: SchemaCaps = .standard) throws(SchemaError) {
        let definition = raw.cleaned()
        guard let id = definition.id else { throw SchemaError(control: nil, field: "id", problem: .missing) }
        guard Self.isValidID(id) else { throw SchemaError(control: nil, field: "id", problem: .badID) }
        guard let definitions = definition.controls else {
            throw SchemaError(control: nil, field: "controls", problem: .missing)
        }
        guard !definitions.isEmpty else { throw SchemaError(control: nil, field: "controls", problem: .empty) }
        guard definitions.count <= caps.controls else {
            throw SchemaError(control: nil, field: "controls", problem: .tooMany(caps.controls))
        }
        if let title = definition.title, !SchemaCaps.fits(title, caps.title) {
            throw SchemaError(control: nil, field: "title", problem: .tooLong(caps.title))
        }
        let layout: RoomLayout
        switch definition.layout {
        case nil: layout = .cards
        case let name?:
            guard let known = RoomLayout(rawValue: name) else {
                throw SchemaError(control: nil, field: "layout", problem: .unknownOption(name, allowed: RoomLayout.allCases.map(\.rawValue)))
            }
            layout = known
        }
        var seen = Set<String>()
        var controls: [Control] = []
        for (position, raw) in definitions.enumerated() {
            let control = try ControlValidator(raw, position: position + 1, caps: caps).control()
            guard seen.insert(control.id).inserted else {
                throw SchemaError(control: control.id, field: "id", problem: .duplicateID)
            }
            controls.append(control)
        }
        self.id = id
        self.title = definition.title ?? id
        self.layout = layout
        self.controls = controls
    }

    /// The index of the control with `id`, if any.
    public func index(of id: String) -> Int? {
        controls.firstIndex { $0.id == id }
    }

    /// Whether `id` is usable as a room or control id: 1–64 of `A-Z a-z 0-9 _ . -`,
    /// but not `.` or `..`: a URL's dot segments, which clients and proxies
    /// normalise away, so such a room could never be reached by its URL.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...64).contains(bytes.count), id != ".", id != ".." else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
        }
    }
}

/// A room's first layout in the web client: a card per control, or a tuning
/// panel's one line per control. Only a default: each person may switch.
public enum RoomLayout: String, Sendable, Hashable, CaseIterable {
    case cards, compact
}
