/// Batches: several controls committed as ONE room revision, so that nobody
/// ever sees half of a preset or of a restored moment.
extension Room {
    /// Commits `batch` for `client`: every settable control it names whose
    /// state fits the control and differs from the committed one. Refused as
    /// `busy` (naming the holder) when a live gesture holds any thumb of a
    /// control it would change; then nothing changes. The sender can undo the
    /// whole batch in one step.
    mutating func commitBatch(_ batch: Batch, by client: ClientID, into effects: inout [Effect]) throws {
        var targets: [(Int, ControlState)] = []
        for (c, control) in schema.controls.enumerated() {
            guard control.takesBatches, let state = batch.states[control.id], control.isValid(state), state != committed[c] else { continue }
            try requireUnclaimed(c, by: client)
            for s in slotRange(c) { try requireFree(s, control) }
            targets.append((c, state))
        }
        var changes: [Edit.Change] = []
        for (c, state) in targets {
            for thumb in editedThumbs(c, nil) {
                changes.append(Edit.Change(control: c, thumb: thumb, before: committed[c].editValue(of: thumb), after: state.editValue(of: thumb)))
            }
        }
        guard commitAll(targets, by: client, into: &effects) else { return }
        record(Edit(changes: changes), by: client)
        if let cause = batch.cause { noteBatch(cause, controls: targets.map(\.0), by: client) }
    }

    /// Records `cause` as the room's latest batch, for everyone's next frame.
    mutating func noteBatch(_ cause: BatchCause, controls: [Int], by client: ClientID) {
        lastBatch = BatchNote(revision: revision, by: client, cause: cause, controls: controls.sorted().map { schema.controls[$0].id })
        log.touch(.batch)
    }

    /// Every control at its schema's initial state: a whole-room reset.
    var initialBatch: Batch {
        Batch(.reset(control: nil), states: Dictionary(schema.controls.map { ($0.id, $0.initial) }, uniquingKeysWith: { a, _ in a }))
    }

    /// Makes each of `targets` (control, state) committed, as one new room
    /// revision for all the controls whose state differs (a single control
    /// goes through `commit` as usual). Returns whether anything changed.
    @discardableResult
    mutating func commitAll(_ targets: [(Int, ControlState)], by client: ClientID, into effects: inout [Effect]) -> Bool {
        let changed = targets.filter { committed[$0.0] != $0.1 }
        guard changed.count > 1 else {
            guard let (c, state) = changed.first else { return false }
            return commit(c, state, by: client, into: &effects)
        }
        revision += 1
        for (c, state) in changed {
            committed[c] = state
            revisions[c] = revision
            committedBy[c] = client
            log.touch(.control(c))
            effects.append(.commit(Commit(controlIndex: c, control: schema.controls[c].id, state: state, revision: revision, by: client)))
        }
        for (c, _) in changed { reconcile(c, except: nil, into: &effects) }
        return true
    }
}

extension Control {
    /// Whether batches (presets, restored moments) set this control: not a
    /// gauge, whose value a program publishes.
    public var takesBatches: Bool {
        if case .gauge = kind { return false }
        if case .button = kind { return false } // a press is an event, not a value to put back
        return true
    }
}
