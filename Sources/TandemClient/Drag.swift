import TandemCore
import TandemWire

/// A gesture on one thumb: moves preview (others see a ghost), `end` commits
/// once. Positions are track fractions (0…1), as on the wire; each move is
/// snapped locally with TandemCore's math, exactly as the server snaps it.
public struct Drag: Sendable {
    public let room: RoomSession
    public let control: Control
    public let thumb: Thumb

    func fields(_ phase: String, at: Double? = nil) -> [JSONMember] {
        var fields = [JSONMember("type", .string("drag")), JSONMember("control", .string(control.id)),
                      JSONMember("thumb", .string(thumb.rawValue)), JSONMember("phase", .string(phase))]
        if let at { fields.append(JSONMember("at", .number(at))) }
        return fields
    }

    /// The state a pointer at fraction `f` shows, snapped like the server does.
    public func preview(at f: Double) -> ControlState? {
        guard let committed = room.state(of: control.id) else { return nil }
        return control.placing(thumb, at: f, against: committed)
    }

    /// Moves the thumb to track fraction `f` (not waiting for the ack); returns the local preview.
    @discardableResult
    public func move(to f: Double) -> ControlState? {
        room.post(fields("move", at: f))
        return preview(at: f)
    }

    /// Ends the gesture at `f` (or at the last move); returns once the commit is acknowledged.
    public func end(at f: Double? = nil) async throws {
        try await room.send(fields("end", at: f), resend: false)
    }

    /// Cancels: the committed value stays.
    public func cancel() async throws {
        try await room.send(fields("cancel"), resend: false)
    }
}
