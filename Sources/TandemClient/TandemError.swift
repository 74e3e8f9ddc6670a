/// Everything a `RoomSession` call can fail with: one case per server reject code,
/// plus the client's own failures.
public enum TandemError: Error, Sendable, Hashable, CustomStringConvertible {
    case badValue(String)
    case unknownControl(String)
    case unknownThumb(String)
    case forbidden(String)
    case rateLimited(String)
    case readOnly(String)
    /// The thumb is held by another client's gesture: its id and display name.
    case busy(holder: String, holderName: String?, message: String)
    /// Someone claimed the control ("only I move this"): its holder's id and display name.
    case claimed(holder: String, holderName: String?, message: String)
    case noGesture(String)
    case badMessage(String)
    case unauthorized(String)
    /// Cluster mode: the room's owner or Redis could not be reached; nothing changed, try again later.
    case unavailable(String)
    /// Cluster mode: the room's owner stopped answering after the message reached it:
    /// it may or may not have been applied (the room's state tells).
    case outcomeUnknown(String)
    /// The server closed the connection before a welcome (4401, 4403, 4404…).
    case refused(code: Int, reason: String)
    /// The connection dropped before the server acknowledged this step or gesture.
    case connectionLost
    /// The session was closed (`RoomSession.close()`).
    case closed
    case badURL(String)
    case transport(String)
    case protocolViolation(String)

    /// The typed error for a reject frame's `code`.
    static func reject(code: String, message: String, holder: String?, holderName: String?) -> TandemError {
        switch code {
        case "bad_value": .badValue(message)
        case "unknown_control": .unknownControl(message)
        case "unknown_thumb": .unknownThumb(message)
        case "forbidden": .forbidden(message)
        case "rate_limited": .rateLimited(message)
        case "read_only": .readOnly(message)
        case "busy": .busy(holder: holder ?? "", holderName: holderName, message: message)
        case "claimed": .claimed(holder: holder ?? "", holderName: holderName, message: message)
        case "no_gesture": .noGesture(message)
        case "unauthorized": .unauthorized(message)
        case "unavailable": .unavailable(message)
        case "unknown": .outcomeUnknown(message)
        default: .badMessage("\(code): \(message)")
        }
    }

    public var description: String {
        switch self {
        case let .busy(holder, name, message): "busy: held by \(name ?? holder) (\(holder)): \(message)"
        case let .claimed(holder, name, message): "claimed by \(name ?? holder) (\(holder)): \(message)"
        case let .refused(code, reason): "refused with close \(code): \(reason)"
        case .connectionLost: "the connection was lost before the server acknowledged"
        case .closed: "the room session was closed"
        case let .badValue(m), let .unknownControl(m), let .unknownThumb(m), let .forbidden(m),
             let .rateLimited(m), let .readOnly(m), let .noGesture(m), let .badMessage(m),
             let .unauthorized(m), let .unavailable(m), let .outcomeUnknown(m), let .badURL(m), let .transport(m), let .protocolViolation(m): m
        }
    }
}
