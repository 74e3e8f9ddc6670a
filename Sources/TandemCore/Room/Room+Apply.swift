extension Room {
    /// Applies one message from `client` at `now` and returns what happened.
    ///
    /// Holds that lapsed by `now` are cancelled first. A member's message is
    /// then checked for order (`seq` must increase), rate and role. A refused
    /// message changes nothing and yields one `reject`; every processed
    /// message of a member moves its `ack`. A client that is not a member (the
    /// HTTP API) is an editor without ordering, rate limit or ack. A view
    /// (`RoomView`) has no `apply`: its authority applies.
    public mutating func apply(_ message: ClientMessage, from client: ClientID, at now: Moment) -> [Effect] {
        var effects = expire(at: now)
        let (admitted, gated) = admit(client, seq: message.seq, asWrite: message.operation.isWrite, at: now)
        effects += gated
        guard admitted else { return effects }
        performChecked(message, from: client, at: now, into: &effects)
        return effects
    }

    /// Cancels every gesture whose hold lapsed by `now` (no message for
    /// `limits.holdTimeout` seconds). The server calls this on a timer; `apply` calls it too.
    public mutating func expire(at now: Moment) -> [Effect] {
        var effects: [Effect] = []
        for s in slots.indices {
            guard let gesture = slots[s].live, now.seconds(since: gesture.lastHeard) >= limits.holdTimeout else { continue }
            finish(slot: s, phase: .cancel, into: &effects)
        }
        expireClaims(at: now, into: &effects) // Room+Claims.swift
        return effects
    }

    /// The earliest moment at which a live hold or a claim will lapse, if any: when the server's timer should fire.
    public var nextLapse: Moment? {
        let holds = slots.compactMap { $0.live?.lastHeard.adding(seconds: limits.holdTimeout) }.min()
        guard let claims = nextClaimLapse else { return holds }
        return holds.map { Swift.min($0, claims) } ?? claims
    }

    /// Whether a live hold or a claim has lapsed by `now`: `expire(at:)` has something to end.
    public func hasLapsedHold(at now: Moment) -> Bool { nextLapse.map { $0 <= now } ?? false }

    // MARK: operations

    mutating func perform(_ operation: Operation, from client: ClientID, at now: Moment, into effects: inout [Effect]) throws {
        switch operation {
        case .undo: return try revert(.undo, from: client, into: &effects)
        case .redo: return try revert(.redo, from: client, into: &effects)
        case let .batch(batch): return try commitBatch(batch, by: client, into: &effects)
        case .reset(nil): return try commitBatch(initialBatch, by: client, into: &effects)
        case let .focus(control): return try focus(control, of: client, into: &effects) // Room+Presence.swift
        default: break
        }
        guard let name = operation.control, let c = schema.index(of: name) else {
            throw Refusal(.unknownControl, "no control '\(operation.control ?? "")' in room '\(id)'")
        }
        let control = schema.controls[c]
        switch operation {
        case .claim: return try claim(c, by: client, at: now, into: &effects)
        case .release: return try release(c, by: client, into: &effects)
        default:
            try requireUnclaimed(c, by: client) // Room+Claims.swift
            touchClaim(c, by: client, at: now)
        }
        switch operation {
        case let .drag(_, thumbName, phase, pointer):
            if case .gauge = control.kind { throw Refusal(.readOnly, "'\(control.id)' is a gauge: it takes no drags") }
            guard control.kind.takesDrags else {
                throw Refusal(.badValue, "'\(control.id)' is a \(control.kind.typeName): a \(control.kind.typeName) takes set or step, not drags")
            }
            let thumb = try resolve(thumbName, of: control)
            try check(pointer, of: thumb)
            try drag(c, thumb, phase, pointer, from: client, at: now, into: &effects)
        case let .set(_, thumbName, value):
            try set(c, thumbName, value, from: client, into: &effects)
        case let .step(_, thumbName, by, byY):
            if case .gauge = control.kind { throw Refusal(.readOnly, "'\(control.id)' is a gauge: it takes no steps") }
            let thumb = try resolve(thumbName, of: control)
            let (nx, ny) = try steps(by, byY, of: control)
            if case .button = control.kind { return try press(c, by: nx, from: client, into: &effects) }
            let s = slot(c, thumb)!
            try requireFree(s, control)
            let before = committed[c]
            if commit(c, control.stepping(thumb, by: nx, byY: ny, from: before), by: client, into: &effects) {
                record(c, [thumb], from: before, to: committed[c], by: client)
            }
        case .reset:
            if case .gauge = control.kind { throw Refusal(.readOnly, "'\(control.id)' is a gauge: a program publishes it, so it has no default to go back to") }
            if case .button = control.kind { throw Refusal(.badValue, "'\(control.id)' is a button: a press is an event, not a value to reset") }
            try commitBatch(Batch(.reset(control: control.id), states: [control.id: control.initial]), by: client, into: &effects)
        case .undo, .redo, .batch, .claim, .release, .focus:
            break // performed above
        }
    }

    /// The thumb a message names; a control with one thumb needs no name.
    private func resolve(_ name: String?, of control: Control) throws -> Thumb {
        guard let name else {
            if control.thumbs.count == 1 { return control.thumbs[0] }
            throw Refusal(.unknownThumb, "'\(control.id)' needs a thumb: \(control.thumbs.map(\.rawValue).joined(separator: ", "))")
        }
        guard let thumb = Thumb(rawValue: name), control.has(thumb) else {
            throw Refusal(.unknownThumb, "'\(control.id)' has no thumb '\(name)' (it has \(control.thumbs.map(\.rawValue).joined(separator: ", ")))")
        }
        return thumb
    }

    func requireFree(_ s: Int, _ control: Control) throws {
        if let holder = slots[s].live?.holder {
            throw Refusal(.busy, "'\(control.id)' \(slots[s].thumb.rawValue) is held by \(holder)", holder: holder)
        }
    }

    private mutating func set(_ c: Int, _ thumbName: String?, _ value: SetValue, from client: ClientID, into effects: inout [Effect]) throws {
        let control = schema.controls[c]
        let next: ControlState
        var edited: Thumb?
        switch (control.kind, thumbName, value) {
        case (.color, nil, let .text(text)):
            guard let rgb = ColorMath.parseHex(text) else {
                throw Refusal(.badValue, "a whole colour is set with \"#RRGGBB\", not '\(text)'")
            }
            for s in slotRange(c) { try requireFree(s, control) }
            next = .color(RGB(red: control.channelLevel(rgb.red), green: control.channelLevel(rgb.green), blue: control.channelLevel(rgb.blue)))
        case (.color, nil, _):
            throw Refusal(.badValue, "a whole colour is set with \"#RRGGBB\"; a channel needs a thumb")
        case (.toggle, _, _), (.xy, _, _), (.button, _, _):
            let thumb = try resolve(thumbName, of: control)
            if case .button = control.kind { return try press(c, value, from: client, into: &effects) }
            try requireFree(slot(c, thumb)!, control)
            next = try kindSetting(control, value, against: committed[c])
            edited = thumb
        case (.gauge, _, let .number(number)):
            if let thumbName, thumbName != Thumb.value.rawValue {
                throw Refusal(.unknownThumb, "'\(control.id)' is a gauge: it has only a value")
            }
            guard number.isFinite else { throw Refusal(.badValue, "value must be a finite number") }
            next = control.setting(nil, to: number, against: committed[c])
        case (_, _, let .number(number)):
            let thumb = try resolve(thumbName, of: control)
            guard number.isFinite else { throw Refusal(.badValue, "value must be a finite number") }
            try requireFree(slot(c, thumb)!, control)
            next = control.setting(thumb, to: number, against: committed[c])
            edited = thumb
        case (_, _, let .text(text)):
            if case .gauge = control.kind {} else { _ = try resolve(thumbName, of: control) }
            throw Refusal(.badValue, "value must be a number, not the string '\(text)'")
        case (_, _, .other), (_, _, .flag), (_, _, .point):
            if case .gauge = control.kind {} else if case .color = control.kind, thumbName == nil {} else {
                _ = try resolve(thumbName, of: control)
            }
            throw Refusal(.badValue, "value must be a number, not \(value.typeName)")
        }
        let before = committed[c]
        if commit(c, next, by: client, into: &effects) {
            record(c, editedThumbs(c, edited), from: before, to: next, by: client)
        }
    }

    private mutating func drag(_ c: Int, _ thumb: Thumb, _ phase: DragPhase, _ input: Pointer?, from client: ClientID, at now: Moment, into effects: inout [Effect]) throws {
        let control = schema.controls[c]
        let s = slot(c, thumb)!
        if phase == .begin {
            if let gesture = slots[s].live {
                guard gesture.holder == client else {
                    throw Refusal(.busy, "'\(control.id)' \(thumb.rawValue) is held by \(gesture.holder)", holder: gesture.holder)
                }
                // A second begin from the holder restarts the gesture (a browser
                // that lost a pointerup): the old one is cancelled first.
                finish(slot: s, phase: .cancel, into: &effects)
            }
            let shown = displayed(c)
            let anchor: TrackPoint
            if case let .at(x, y) = input {
                anchor = TrackPoint(x, thumb == .xy ? y ?? 0 : 0).clamped
            } else {
                anchor = control.point(of: thumb, in: shown)
            }
            var gesture = Gesture(holder: client, control: c, thumb: thumb, anchor: anchor,
                                  startValue: committed[c].thumbValue(of: thumb)!, commit: control.commit,
                                  pointer: .still, preview: nil, lastHeard: now)
            gesture.pointer = input == nil ? .still : gesture.pointer(after: input)
            slots[s].live = gesture
            members[client]?.holds.insert(s)
            track(slot: s, phase: .begin, into: &effects)
            return
        }
        guard var gesture = slots[s].live, gesture.holder == client else {
            throw Refusal(.noGesture, "no gesture of yours on '\(control.id)' \(thumb.rawValue): send begin first")
        }
        gesture.lastHeard = now
        gesture.pointer = gesture.pointer(after: input)
        slots[s].live = gesture
        switch phase {
        case .move:
            if input != nil { track(slot: s, phase: .move, into: &effects) }
        case .end:
            if input != nil { track(slot: s, phase: .move, into: &effects, announce: false) }
            finish(slot: s, phase: .end, into: &effects)
        case .cancel:
            finish(slot: s, phase: .cancel, into: &effects)
        case .begin:
            break
        }
    }

    // MARK: gestures

    /// The state `gesture` puts its control in, given the rest of the control as `context`.
    private func evaluate(_ gesture: Gesture, against context: ControlState) -> ControlState {
        let control = schema.controls[gesture.control]
        switch gesture.pointer {
        case .still: return control.holding(gesture.thumb, at: gesture.startValue, against: context)
        case let .fraction(p): return control.placing(gesture.thumb, at: p, against: context)
        }
    }

    /// Brings the gesture in slot `s` up to date with its pointer: a new preview
    /// (release mode, against the displayed state) or a commit (live mode,
    /// against the committed state). Emits a gesture entry when what others
    /// see changed, or always with `announce` for a `begin`.
    private mutating func track(slot s: Int, phase: DragPhase, into effects: inout [Effect], announce: Bool = true) {
        guard var gesture = slots[s].live else { return }
        let c = gesture.control
        let thumb = gesture.thumb
        var changed = false
        switch gesture.commit {
        case .release:
            let preview = evaluate(gesture, against: displayed(c, excluding: s)).thumbValue(of: thumb)!
            changed = preview != gesture.preview
            gesture.preview = preview
            slots[s].live = gesture
            if changed { reconcile(c, except: s, into: &effects) }
        case .live:
            if case .fraction = gesture.pointer {
                changed = commit(c, evaluate(gesture, against: committed[c]), by: gesture.holder, into: &effects)
                if changed { slots[s].live?.committedAny = true }
            }
        }
        if announce && (changed || phase == .begin) { emit(slot: s, phase: phase, into: &effects) }
    }

    /// Ends the gesture in slot `s`: `end` commits its last preview (clamped
    /// against the committed state), `cancel` restores the committed value.
    mutating func finish(slot s: Int, phase: DragPhase, into effects: inout [Effect]) {
        guard let gesture = slots[s].live else { return }
        let c = gesture.control
        let control = schema.controls[c]
        slots[s].live = nil
        members[gesture.holder]?.holds.remove(s)
        let before = committed[c]
        if phase == .end, let preview = gesture.preview,
           commit(c, control.holding(gesture.thumb, at: preview, against: before), by: gesture.holder, into: &effects, reconciling: false) {
            record(c, [gesture.thumb], from: before, to: committed[c], by: gesture.holder)
        }
        if gesture.committedAny {
            // A live gesture is one edit from its begin to its last position, however many moves committed.
            let change = Edit.Change(control: c, thumb: gesture.thumb, before: gesture.startValue, after: committed[c].editValue(of: gesture.thumb))
            record(Edit(changes: [change]), by: gesture.holder)
        }
        // Whether or not it committed, the preview left the displayed state:
        // the others are re-evaluated before the last entry records it.
        reconcile(c, except: nil, into: &effects)
        let entry = GestureEntry(controlIndex: c, control: control.id, thumb: gesture.thumb, by: gesture.holder,
                                 phase: phase, state: displayed(c))
        slots[s].liveEntry = nil
        slots[s].endedEntry = entry
        log.remove(.liveGesture(slot: s))
        log.touch(.endedGesture(slot: s))
        effects.append(.gesture(entry))
    }

    /// Re-evaluates the other live previews of control `c` from their own
    /// pointers against the displayed state, so that it keeps every invariant
    /// after a commit or after a preview was withdrawn.
    mutating func reconcile(_ c: Int, except excluded: Int?, into effects: inout [Effect]) {
        for s in slotRange(c) where s != excluded {
            guard var gesture = slots[s].live, gesture.commit == .release else { continue }
            let preview = evaluate(gesture, against: displayed(c, excluding: s)).thumbValue(of: gesture.thumb)!
            guard preview != gesture.preview else { continue }
            gesture.preview = preview
            slots[s].live = gesture
            emit(slot: s, phase: .move, into: &effects)
        }
    }

    private mutating func emit(slot s: Int, phase: DragPhase, into effects: inout [Effect]) {
        guard let gesture = slots[s].live else { return }
        let c = gesture.control
        let entry = GestureEntry(controlIndex: c, control: schema.controls[c].id, thumb: gesture.thumb,
                                 by: gesture.holder, phase: phase, state: displayed(c))
        slots[s].liveEntry = entry
        log.touch(.liveGesture(slot: s))
        effects.append(.gesture(entry))
    }

    /// Makes `state` the committed state of control `c` if it differs, as a
    /// new room revision; a no-op commit makes no revision. Returns whether it committed.
    @discardableResult
    mutating func commit(_ c: Int, _ state: ControlState, by client: ClientID, into effects: inout [Effect], reconciling: Bool = true) -> Bool {
        guard state != committed[c] else { return false }
        revision += 1
        committed[c] = state
        revisions[c] = revision
        committedBy[c] = client
        log.touch(.control(c))
        effects.append(.commit(Commit(controlIndex: c, control: schema.controls[c].id, state: state, revision: revision, by: client)))
        if reconciling { reconcile(c, except: nil, into: &effects) }
        return true
    }
}
