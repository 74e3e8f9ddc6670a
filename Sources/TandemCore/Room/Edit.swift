/// One step of a member's undo history: what one committed gesture, `set` or
/// `step` did to the thumbs it touched.
///
/// Values are thumb values as `ControlState.thumbValue(of:)` gives them (a
/// snap slider's index, a range thumb's integer, a channel's level, a
/// toggle's 0 or 1, an xy pad's two values); a gauge's value is kept under
/// `value`. A button's press is never an edit.
struct Edit: Sendable, Hashable {
    /// One thumb's value before and after the edit.
    struct Change: Sendable, Hashable {
        /// The control's position in the room.
        let control: Int
        let thumb: Thumb
        let before: ThumbValue
        let after: ThumbValue
    }

    /// The thumbs the edit touched: one, a colour's three for a whole-colour
    /// `set`, or those of several controls for a batch (a preset's recall, a
    /// restored moment), which is undone and redone as a whole.
    let changes: [Change]

    /// The controls the edit touched, each once, in the order of `changes`.
    var controls: [Int] {
        var seen: [Int] = []
        for change in changes where !seen.contains(change.control) { seen.append(change.control) }
        return seen
    }
}

/// Which way through the history an `undo` or `redo` goes.
enum EditDirection: Sendable, Hashable {
    case undo, redo
}

/// A member's undo and redo stacks, newest last, each at most `limit` deep.
struct EditHistory: Sendable, Hashable {
    private(set) var undoStack: [Edit] = []
    private(set) var redoStack: [Edit] = []

    /// Records a new edit of one's own: it can be undone, and nothing undone can be redone any more.
    mutating func record(_ edit: Edit, limit: Int) {
        push(edit, onto: &undoStack, limit: limit)
        redoStack.removeAll()
    }

    /// The edit `direction` would revert or re-apply next.
    func next(_ direction: EditDirection) -> Edit? {
        direction == .undo ? undoStack.last : redoStack.last
    }

    /// Moves the next edit of `direction` to the other stack.
    mutating func move(_ direction: EditDirection, limit: Int) {
        switch direction {
        case .undo: if let edit = undoStack.popLast() { push(edit, onto: &redoStack, limit: limit) }
        case .redo: if let edit = redoStack.popLast() { push(edit, onto: &undoStack, limit: limit) }
        }
    }

    private func push(_ edit: Edit, onto stack: inout [Edit], limit: Int) {
        stack.append(edit)
        if stack.count > limit { stack.removeFirst(stack.count - limit) }
    }
}
