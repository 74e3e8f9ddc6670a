/// Undo and redo of one's own edits.
///
/// Each member keeps the edits it committed: a drag gesture that committed
/// (release mode: its `end`; live mode: the whole gesture from `begin` to its
/// last entry), a `set` or a `step`. `undo` puts the thumbs of the last one
/// back at their values from before it, `redo` at their values after it, each
/// placed against the committed state as it is now, exactly as a drag of that
/// thumb would be: others may have changed the control meanwhile, and the
/// result keeps every invariant. Only the edit's own thumbs move.
extension Room {
    /// Reverts (`undo`) or re-applies (`redo`) `client`'s next edit of that direction.
    ///
    /// Nothing to revert changes nothing and is not refused. A thumb of the
    /// edit held by a live gesture is `busy`, and the history stays as it was.
    mutating func revert(_ direction: EditDirection, from client: ClientID, into effects: inout [Effect]) throws {
        let name = direction == .undo ? "undo" : "redo"
        guard let member = members[client] else {
            throw Refusal(.badMessage, "\(name) needs a connection: there is no history without one")
        }
        guard let edit = member.history.next(direction) else { return }
        for c in edit.controls { try requireUnclaimed(c, by: client) }
        for change in edit.changes {
            guard let s = slot(change.control, change.thumb), let holder = slots[s].live?.holder else { continue }
            let control = schema.controls[change.control]
            throw Refusal(.busy, "cannot \(name): '\(control.id)' \(change.thumb.rawValue) is held by \(holder)", holder: holder)
        }
        keepDurableHistory(of: client)
        members[client]?.history.move(direction, limit: limits.undoDepth)
        // Each control's thumbs go back together; a batch comes back as one revision, as it went.
        let targets = edit.controls.map { c in
            let control = schema.controls[c]
            var state = committed[c]
            // Twice: a range's thumbs can block each other (a redo of (0,1) →
            // (2,3) meets upper 1 while placing lower at 2); once the other
            // thumb is in place, the second pass lets the first reach its own.
            for _ in 0..<2 {
                for change in edit.changes where change.control == c {
                    state = control.restoring(change.thumb, to: direction == .undo ? change.before : change.after, against: state)
                }
            }
            return (c, state)
        }
        commitAll(targets, by: client, into: &effects)
    }

    /// Records an edit of `client` on control `c` from `before` to `after`, for
    /// `thumbs`, unless no thumb of it changed. A client that is not a member
    /// (the HTTP API) keeps no history.
    mutating func record(_ c: Int, _ thumbs: [Thumb], from before: ControlState, to after: ControlState, by client: ClientID) {
        let changes = thumbs.map {
            Edit.Change(control: c, thumb: $0, before: before.editValue(of: $0), after: after.editValue(of: $0))
        }
        record(Edit(changes: changes), by: client)
    }

    /// Records `edit` as `client`'s newest, unless it changed nothing.
    mutating func record(_ edit: Edit, by client: ClientID) {
        guard members[client] != nil, edit.changes.contains(where: { $0.before != $0.after }) else { return }
        keepDurableHistory(of: client)
        members[client]?.history.record(edit, limit: limits.undoDepth)
    }

    /// The thumbs an edit of control `c` records: the named thumb, every thumb
    /// of a control (a whole colour), or a gauge's value.
    func editedThumbs(_ c: Int, _ thumb: Thumb?) -> [Thumb] {
        if let thumb { return [thumb] }
        let thumbs = schema.controls[c].thumbs
        return thumbs.isEmpty ? [.value] : thumbs
    }
}

extension ControlState {
    /// A thumb's value as an edit records it; a gauge's value counts as its `value` thumb.
    func editValue(of thumb: Thumb) -> ThumbValue {
        if case let .gauge(value, _) = self { return ThumbValue(value) }
        return thumbValue(of: thumb) ?? ThumbValue(0)
    }
}

extension Control {
    /// `context` with `thumb` back at `number`, clamped against `context` as a
    /// drag of that thumb is; a gauge stores the value.
    func restoring(_ thumb: Thumb, to value: ThumbValue, against context: ControlState) -> ControlState {
        if case .gauge = kind { return setting(nil, to: value.x, against: context) }
        return holding(thumb, at: value, against: context)
    }
}
