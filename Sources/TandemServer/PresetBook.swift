import TandemCore
import TandemWire

/// One room's presets as the server holds them: the list every member is
/// sent, and the rules of names (unique per room once cleaned, case-sensitive),
/// of the per-room limit and of the list's size. Storage, when there is any,
/// is written before a change is made here (`LocalRooms+Presets.swift`), so the
/// book never holds what a restart would forget.
struct PresetBook {
    private(set) var byName: [String: Preset] = [:]
    /// Each preset's size in the `presets` frame (`PresetMessages.preset`), and their sum.
    private var sizes: [String: Int] = [:]
    private(set) var bytes = 0
    /// The `presets` frame, encoded at most once per change, when first asked
    /// for (`frame()`), and shared by every member it goes to.
    private var cachedFrame: [UInt8]?
    /// Stored names this book does not key a preset by: rows written before
    /// names were cleaned (`PresetName.canonical`) that lost to another
    /// spelling of their name, or that are no names any more. The server
    /// deletes them from storage once (`Server.tidyStoredPresets`).
    private(set) var strays: [String] = []
    /// Presets that won under a stored name that is not their cleaned name
    /// (`stored`): to be stored again under their name, and `stored` deleted.
    private(set) var rekeyed: [(stored: String, preset: Preset)] = []

    /// A book of `presets` as stored. Names are keyed as `PresetName.clean`
    /// makes them; of several stored spellings of one name the newest preset
    /// (then the greatest stored name) wins, and the others become `strays`.
    ///
    /// Stored names are compared as bytes here: Swift's `==` on strings is
    /// canonical equivalence, under which every spelling of a name is one.
    init(_ presets: [Preset] = []) {
        var winners: [[UInt8]: (stored: String, preset: Preset)] = [:]
        var strays: [[UInt8]: String] = [:]
        for stored in presets {
            guard let name = PresetName.canonical(stored.name) else {
                strays[Array(stored.name.utf8)] = stored.name
                continue
            }
            let key = Array(name.utf8)
            if let held = winners[key] {
                let heldWins = held.preset.time != stored.time
                    ? held.preset.time > stored.time
                    : !held.stored.utf8.lexicographicallyPrecedes(stored.name.utf8)
                let loser = heldWins ? stored.name : held.stored
                strays[Array(loser.utf8)] = loser
                if heldWins { continue }
            }
            var preset = stored
            preset.name = name
            winners[key] = (stored.name, preset)
        }
        for (key, winner) in winners {
            insert(winner.preset)
            if !winner.stored.utf8.elementsEqual(key) { rekeyed.append(winner) }
        }
        // A stray spelled as a kept name is overwritten by its winner's new row, not deleted.
        self.strays = strays.filter { winners[$0.key] == nil }.map(\.value).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        rekeyed.sort { $0.preset.name < $1.preset.name }
    }

    /// Forgets `strays` and `rekeyed`, once storage has been tidied.
    mutating func tidied() {
        strays = []
        rekeyed = []
    }

    /// Every preset, sorted by name (as the `presets` frame lists them).
    var sorted: [Preset] {
        byName.values.sorted { $0.name < $1.name }
    }

    var count: Int { byName.count }

    func preset(named name: String) -> Preset? {
        byName[name]
    }

    /// The `presets` frame of this list (encoded once per change).
    mutating func frame() -> [UInt8] {
        if let cachedFrame { return cachedFrame }
        let frame = PresetMessages.frame(sorted)
        cachedFrame = frame
        return frame
    }

    /// Why `preset` may not be saved: a new name past the limit, or a list past its size.
    func refusalToSave(_ preset: Preset) -> PresetRefusal? {
        if byName[preset.name] == nil, byName.count >= PresetName.maxPerRoom {
            return PresetRefusal(.badValue, "this room keeps at most \(PresetName.maxPerRoom) presets: delete one, or save over an existing name", conflict: true)
        }
        let size = Self.size(of: preset)
        if bytes - (sizes[preset.name] ?? 0) + size > PresetName.maxListBytes {
            return PresetRefusal(.badValue, "this room's presets may take at most \(PresetName.maxListBytes / 1024) KiB (this one would take \(size / 1024) KiB of the \((PresetName.maxListBytes - bytes + (sizes[preset.name] ?? 0)) / 1024) KiB left): delete one", conflict: true)
        }
        return nil
    }

    /// Why `name` may not become `to`: no such preset, or `to` is taken.
    func refusalToRename(_ name: String, to: String) -> PresetRefusal? {
        guard byName[name] != nil else { return .unknown(name) }
        if name != to, byName[to] != nil { return .taken(to) }
        return nil
    }

    /// Why `name` may not be deleted or recalled: no such preset.
    func refusalToUse(_ name: String) -> PresetRefusal? {
        byName[name] == nil ? .unknown(name) : nil
    }

    mutating func save(_ preset: Preset) {
        insert(preset)
    }

    mutating func rename(_ name: String, to: String) {
        guard var preset = remove(name) else { return }
        preset.name = to
        insert(preset)
    }

    mutating func delete(_ name: String) {
        _ = remove(name)
    }

    /// The book once `change` (a change made on any node, in Redis' order) is applied.
    mutating func apply(_ change: PresetChangeNote) {
        switch change {
        case let .saved(preset): insert(preset)
        case let .moved(from, preset):
            _ = remove(from)
            insert(preset)
        case let .deleted(name): _ = remove(name)
        }
    }

    private mutating func insert(_ preset: Preset) {
        let size = Self.size(of: preset)
        bytes += size - (sizes[preset.name] ?? 0)
        sizes[preset.name] = size
        byName[preset.name] = preset
        cachedFrame = nil
    }

    private mutating func remove(_ name: String) -> Preset? {
        guard let preset = byName.removeValue(forKey: name) else { return nil }
        bytes -= sizes.removeValue(forKey: name) ?? 0
        cachedFrame = nil
        return preset
    }

    /// What `preset` adds to the `presets` frame (its encoding and a comma).
    static func size(of preset: Preset) -> Int {
        PresetMessages.preset(preset).count + 1
    }
}

/// One change of a room's presets as it travels between nodes (the delta of
/// `ReplicatedRooms+Presets.swift`): absolute, so that applying a run of them
/// again over a list that already has them changes nothing.
enum PresetChangeNote: Equatable {
    /// `preset` is stored under its name (new or replaced).
    case saved(Preset)
    /// The preset `from` is now `preset` (a rename: its states, under the new name).
    case moved(from: String, Preset)
    /// No preset is named `name`.
    case deleted(String)
}

/// Why a preset request was refused: a reject code and a sentence.
struct PresetRefusal: Error {
    var code: RejectCode
    var message: String
    /// A name taken, or the room full: HTTP 409.
    var conflict = false
    /// Storage failed, not the request: HTTP 500 (on a WebSocket, `bad_value` with this message).
    var storage = false

    init(_ code: RejectCode, _ message: String, conflict: Bool = false, storage: Bool = false) {
        self.code = code
        self.message = message
        self.conflict = conflict
        self.storage = storage
    }

    static func taken(_ name: String) -> PresetRefusal {
        PresetRefusal(.badValue, "a preset named '\(name)' already exists: delete it first, or choose another name", conflict: true)
    }

    static let full = PresetRefusal(.badValue, "this room keeps at most \(PresetName.maxPerRoom) presets: delete one, or save over an existing name", conflict: true)

    static func unknown(_ name: String) -> PresetRefusal {
        PresetRefusal(.unknownPreset, "no preset named '\(name)' in this room")
    }

    static let unreadable = PresetRefusal(.badValue, "the presets of this room could not be read from storage; try again later", storage: true)
    static let unwritable = PresetRefusal(.badValue, "the preset could not be written to storage, so nothing changed; try again later", storage: true)
}
