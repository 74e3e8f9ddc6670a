import TandemCore
import TandemWire

/// Presets as every kind of rooms shows them (docs/presets.md): each member
/// gets its room's list after its welcome and after changes of it, at most
/// four times a second per room (`PresetFeed`). Where a room's presets are
/// kept and how a change is made is each kind's own (`presetBook`,
/// `changePreset`).
extension RoomServiceBase {
    /// The `presets` frame of room `id`, or `nil` when its presets cannot be read (yet).
    func presetsFrame(_ id: String) -> [UInt8]? {
        guard presetBook(id) != nil else { return nil }
        return presetBooks[id]?.frame()
    }

    /// The room's list changed on this node: sent now when the last list went
    /// out at least `PresetFeed.interval` ago, else by `flushPresetLists` once
    /// it has (with every change made meanwhile).
    func announcePresetsHere(_ host: RoomHost) {
        if presetFeed.changed(host.room.id, at: MonotonicClock.now()) { sendPresetList(host) }
    }

    /// Every 250 ms (housekeeping): the lists that waited.
    func flushPresetLists(at now: Moment) {
        guard !presetFeed.dirty.isEmpty else { return }
        for id in presetFeed.due(at: now) {
            if let host = rooms[id] { sendPresetList(host) }
        }
    }

    /// Sends the room's list to every member, from each one's next writable
    /// callback; a list not yet sent is replaced by the newer one. The frame
    /// is encoded once and shared.
    func sendPresetList(_ host: RoomHost) {
        guard let frame = presetsFrame(host.room.id) else { return }
        let now = MonotonicClock.now()
        presetFeed.sent(host.room.id, at: now, bytes: frame.count)
        // A member not yet welcomed (replicated rooms: not yet admitted by the owner) gets the list with its welcome.
        for connection in host.members.values where connection.closing == nil && connection.welcomed {
            connection.presets = frame
            arm(connection, at: now)
        }
    }

    /// The message that recalls `preset`: one batch of its states.
    func recallMessage(_ preset: Preset, seq: Int) -> ClientMessage {
        ClientMessage(seq: seq, .batch(Batch(.preset(name: preset.name), states: preset.states)))
    }
}

/// What a preset change did.
enum PresetOutcome {
    case saved(Preset, created: Bool)
    case renamed(Preset)
    case deleted
}
