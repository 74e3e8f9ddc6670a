import TandemCore
import TandemWire

/// One room's presets as the server holds them: the list every member is
/// sent, and the rules of names (unique per room, case-sensitive) and of the
/// per-room limit. Storage, when there is any, is written before a change is
/// made here (`Server+Presets.swift`), so the book never holds what a
/// restart would forget.
struct PresetBook {
    private(set) var byName: [String: Preset] = [:] {
        didSet { frame = PresetMessages.frame(sorted) }
    }
    /// The `presets` frame of this list, encoded once per change and shared
    /// by every member it goes to (a list can be large: 100 presets of a big room).
    private(set) var frame: [UInt8]

    init(_ presets: [Preset] = []) {
        var byName: [String: Preset] = [:]
        for preset in presets { byName[preset.name] = preset }
        self.byName = byName
        frame = PresetMessages.frame(byName.values.sorted { $0.name < $1.name })
    }

    /// Every preset, sorted by name (as the `presets` frame lists them).
    var sorted: [Preset] {
        byName.values.sorted { $0.name < $1.name }
    }

    var count: Int { byName.count }

    func preset(named name: String) -> Preset? {
        byName[name]
    }

    /// Why `preset` may not be saved: a new name past the limit.
    func refusalToSave(_ preset: Preset) -> PresetRefusal? {
        guard byName[preset.name] == nil, byName.count >= PresetName.maxPerRoom else { return nil }
        return PresetRefusal(.badValue, "this room keeps at most \(PresetName.maxPerRoom) presets: delete one, or save over an existing name", conflict: true)
    }

    /// Why `name` may not become `to`: no such preset, or `to` is taken.
    func refusalToRename(_ name: String, to: String) -> PresetRefusal? {
        guard byName[name] != nil else { return .unknown(name) }
        if name != to, byName[to] != nil {
            return PresetRefusal(.badValue, "a preset named '\(to)' already exists: delete it first, or choose another name", conflict: true)
        }
        return nil
    }

    /// Why `name` may not be deleted or recalled: no such preset.
    func refusalToUse(_ name: String) -> PresetRefusal? {
        byName[name] == nil ? .unknown(name) : nil
    }

    mutating func save(_ preset: Preset) {
        byName[preset.name] = preset
    }

    mutating func rename(_ name: String, to: String) {
        guard var preset = byName.removeValue(forKey: name) else { return }
        preset.name = to
        byName[to] = preset
    }

    mutating func delete(_ name: String) {
        byName[name] = nil
    }
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

    static func unknown(_ name: String) -> PresetRefusal {
        PresetRefusal(.unknownPreset, "no preset named '\(name)' in this room")
    }

    static let unreadable = PresetRefusal(.badValue, "the presets of this room could not be read from storage; try again later", storage: true)
    static let unwritable = PresetRefusal(.badValue, "the preset could not be written to storage, so nothing changed; try again later", storage: true)
}
