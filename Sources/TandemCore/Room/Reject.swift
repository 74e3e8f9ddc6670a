/// The reject codes of protocol v1.
public enum RejectCode: String, Sendable, Hashable, CaseIterable {
    /// Not JSON, wrong shape, or a `seq` that does not increase.
    case badMessage = "bad_message"
    /// No control with that id in the room.
    case unknownControl = "unknown_control"
    /// The control has no thumb of that name (or needs one named).
    case unknownThumb = "unknown_thumb"
    /// NaN, infinity, a fraction where a whole number belongs, or the wrong type.
    case badValue = "bad_value"
    /// Drags and steps on a gauge.
    case readOnly = "read_only"
    /// The thumb is held by another gesture; the reject names the holder.
    case busy
    /// Someone claimed the control ("only I move this"); the reject names the
    /// holder. Until they release it, leave, or the claim lapses (docs/protocol.md, "Claims").
    case claimed
    /// `move`, `end` or `cancel` without a `begin` of one's own on that thumb.
    case noGesture = "no_gesture"
    /// The client's role may not write.
    case forbidden
    /// Over the per-client message rate.
    case rateLimited = "rate_limited"
    /// A credential the server refused (a bad `auth` refresh); the old one stands.
    case unauthorized
    /// No preset of that name in the room (a `preset` recall, rename or delete; docs/presets.md).
    case unknownPreset = "unknown_preset"
    /// The room's owner or its storage (Redis, or a single node's SQLite file on a
    /// full or failing disk) could not take the change, so nothing changed;
    /// sending again later may work (docs/reliability.md).
    case unavailable
    /// Cluster mode only: the room's owner stopped answering (it died, lost its
    /// lease or its Redis) after the message reached it, so whether it was
    /// applied is not known; the room's state tells (docs/reliability.md).
    /// The only reject that does not promise that nothing changed.
    case unknown
}

/// A refused message: it changed nothing, and the connection stays open.
public struct Reject: Error, Sendable, Hashable {
    /// The client whose message this was.
    public var to: ClientID
    /// The `seq` of the refused message.
    public var seq: Int
    /// Why.
    public var code: RejectCode
    /// A sentence for people.
    public var message: String
    /// For `busy`: who holds the thumb.
    public var holder: ClientID?

    public init(to: ClientID, seq: Int, code: RejectCode, message: String, holder: ClientID? = nil) {
        self.to = to
        self.seq = seq
        self.code = code
        self.message = message
        self.holder = holder
    }
}

/// A reject before it is addressed: what the room's checks throw.
struct Refusal: Error {
    var code: RejectCode
    var message: String
    var holder: ClientID?

    init(_ code: RejectCode, _ message: String, holder: ClientID? = nil) {
        self.code = code
        self.message = message
        self.holder = holder
    }
}
