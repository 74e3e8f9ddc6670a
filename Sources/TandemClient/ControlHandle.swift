import TandemCore
import TandemWire

/// One control of a room, by id: its committed state, its changes, and writes.
public struct ControlHandle: Sendable {
    public let room: RoomSession
    public let id: String

    /// The committed state (`nil` for an id the room does not have).
    public var state: ControlState? { room.state(of: id) }
    /// The committed number of a one-number control (slider, snap, gauge, toggle, button).
    public var value: Double? { state?.primaryValue }
    /// The schema entry: kind, bounds, thumbs.
    public var definition: Control? { room.definition(of: id) }

    /// Every committed change of this control from now on.
    public var changes: AsyncStream<Change> { room.changes(of: id) }

    /// Sets the control (or one `thumb` of it) to `value`; returns once the
    /// server acknowledged it, or throws the reject as a `TandemError`.
    public func set(_ value: Double, thumb: Thumb? = nil) async throws {
        try await set(.number(value), thumb: thumb)
    }

    /// Sets a colour to `"#RRGGBB"`.
    public func set(hex: String) async throws {
        try await set(.string(hex), thumb: nil)
    }

    private func set(_ value: JSON, thumb: Thumb?) async throws {
        var fields = [JSONMember("type", .string("set")), JSONMember("control", .string(id))]
        if let thumb { fields.append(JSONMember("thumb", .string(thumb.rawValue))) }
        fields.append(JSONMember("value", value))
        try await room.send(fields, resend: true)
    }

    /// Steps the control by `n` (snap index, range thumb, slider step, colour 1/255).
    public func step(by n: Int, thumb: Thumb? = nil) async throws {
        var fields = [JSONMember("type", .string("step")), JSONMember("control", .string(id))]
        if let thumb { fields.append(JSONMember("thumb", .string(thumb.rawValue))) }
        fields.append(JSONMember("by", .number(Double(n))))
        try await room.send(fields, resend: false)
    }

    /// Puts the control back to its schema's initial state, as one edit of
    /// this connection's (undoable); returns once the server acknowledged it.
    public func reset() async throws {
        try await room.send([JSONMember("type", .string("reset")), JSONMember("control", .string(id))], resend: true)
    }

    /// Claims the control: until `release()` (or this session leaves, or 5
    /// minutes without touching it) others' writes to it fail with `claimed`.
    public func claim() async throws {
        try await room.send([JSONMember("type", .string("claim")), JSONMember("control", .string(id))], resend: false)
    }

    /// Lets this session's claim of the control go (an admin's lets anyone's go).
    public func release() async throws {
        try await room.send([JSONMember("type", .string("release")), JSONMember("control", .string(id))], resend: false)
    }

    /// Begins a gesture on `thumb` (default: the control's first thumb); throws
    /// `busy` naming the holder when another client holds it.
    public func drag(thumb: Thumb? = nil) async throws -> Drag {
        guard let control = definition else { throw TandemError.unknownControl("no control \(id) in this room") }
        guard let thumb = thumb ?? control.thumbs.first else { throw TandemError.readOnly("\(id) has no thumb to drag") }
        let drag = Drag(room: room, control: control, thumb: thumb)
        try await room.send(drag.fields("begin"), resend: false)
        return drag
    }
}
