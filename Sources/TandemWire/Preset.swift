import TandemCore

/// A named set of control states saved in a room, to be recalled as one
/// commit (docs/presets.md). It holds every control that takes batches (not
/// gauges, not buttons) as they were committed when it was saved.
public struct Preset: Sendable, Hashable {
    /// One control's state in a preset.
    public struct Entry: Sendable, Hashable {
        public var control: String
        public var state: ControlState

        public init(control: String, state: ControlState) {
            self.control = control
            self.state = state
        }
    }

    /// Unique per room, case-sensitive, already cleaned (`PresetName.clean`: NFC, no bidi controls).
    public var name: String
    /// The states, in the room's control order at the time of saving.
    public var entries: [Entry]
    /// The connection that saved it ("c12", or "api" for the HTTP API).
    public var client: String
    /// The display name of whoever saved it.
    public var by: String
    /// When it was saved: Unix time in milliseconds.
    public var time: Int64

    public init(name: String, entries: [Entry], client: String, by: String, time: Int64) {
        self.name = name
        self.entries = entries
        self.client = client
        self.by = by
        self.time = time
    }

    /// The states by control id, as a batch takes them.
    public var states: [String: ControlState] {
        Dictionary(entries.map { ($0.control, $0.state) }, uniquingKeysWith: { _, last in last })
    }

    /// What `room`'s controls are now, as a preset would hold them: every
    /// control that takes batches, in the room's order, at its committed state.
    public static func entries(of room: Room) -> [Entry] {
        room.schema.controls.indices.compactMap { c in
            let control = room.schema.controls[c]
            return control.takesBatches ? Entry(control: control.id, state: room.committed[c]) : nil
        }
    }
}

/// Preset names: 1–60 characters and at most 480 bytes of UTF-8 after
/// cleaning (`ShownText.clean`: NFC, no bidi controls) and trimming, no
/// control characters and no `/`, unique per room and case-sensitive
/// ("Warm" and "warm" are two presets; "é" and "e" + U+0301 are one).
public enum PresetName {
    /// The longest name, in characters (grapheme clusters: an emoji is one).
    public static let maxLength = 60
    /// The longest name, in UTF-8 bytes: eight a character (`ShownText.byteCap`),
    /// so that 60 characters of stacked combining marks (kilobytes) are refused.
    public static let maxBytes = ShownText.byteCap(characters: maxLength)
    /// The most presets a room keeps.
    public static let maxPerRoom = 100
    /// The most bytes a room's `presets` list may take on the wire (1 MiB):
    /// a save that would make it longer is refused (docs/presets.md).
    public static let maxListBytes = 1 << 20

    /// The name cleaned (NFC, bidi controls removed) with leading and
    /// trailing whitespace trimmed, or why it is not a name (a sentence
    /// naming `field`, for a `bad_value`). Two spellings of one name clean
    /// to the same bytes: the one key in storage, the one entry under the cap.
    public static func clean(_ raw: String, field: String = "name") -> Result<String, PresetNameProblem> {
        // The byte cap first, on what arrived, so that no long text is normalised for nothing
        // (NFC can grow a text at most threefold; a name within the cap comes from at most 16 times it).
        guard raw.utf8.count <= 16 * maxBytes else {
            return .failure(PresetNameProblem(message: "\(field) must be at most \(maxBytes) bytes of UTF-8 (it has \(raw.utf8.count))"))
        }
        let trimmed = ShownText.clean(raw).trimmingWhitespace()
        guard !trimmed.isEmpty else {
            return .failure(PresetNameProblem(message: "\(field) must not be empty"))
        }
        guard trimmed.utf8.count <= maxBytes else {
            return .failure(PresetNameProblem(message: "\(field) must be at most \(maxBytes) bytes of UTF-8 (it has \(trimmed.utf8.count))"))
        }
        guard trimmed.count <= maxLength else {
            return .failure(PresetNameProblem(message: "\(field) must be at most \(maxLength) characters (it has \(trimmed.count))"))
        }
        // Control characters would break lists, logs and CSV lines; a line break is never part of a name.
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            return .failure(PresetNameProblem(message: "\(field) must not contain control characters or line breaks"))
        }
        // The HTTP API names a preset in its path, where a slash would split it
        // and "." or ".." would be taken for the current or parent folder.
        if trimmed.contains("/") {
            return .failure(PresetNameProblem(message: "\(field) must not contain / (a preset is named in URL paths)"))
        }
        if trimmed == "." || trimmed == ".." {
            return .failure(PresetNameProblem(message: "\(field) must not be . or .. (a preset is named in URL paths)"))
        }
        return .success(trimmed)
    }

    /// A stored name as this version keys it: cleaned and trimmed, or `nil`
    /// when it is no longer a name at all (a row written by an older version).
    public static func canonical(_ stored: String) -> String? {
        try? clean(stored).get()
    }
}

/// Why a text is not a preset name.
public struct PresetNameProblem: Error, Sendable, Hashable {
    public var message: String
}

extension String {
    /// Without leading and trailing white space (spaces, tabs, line breaks, NBSP, …).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}

extension Preset {
    /// What recalling this preset in `room` would change, in the room's
    /// order: the controls it holds that still take batches, whose saved
    /// state still fits them (a schema may have changed since) and differs
    /// from the committed one. Exactly what `Operation.batch` commits.
    public func changes(in room: Room) -> [PresetChange] {
        let saved = states
        return room.schema.controls.indices.compactMap { c in
            let control = room.schema.controls[c]
            guard control.takesBatches, let state = saved[control.id], control.isValid(state), state != room.committed[c] else { return nil }
            return PresetChange(control: control.id, preset: state, now: room.committed[c])
        }
    }
}
