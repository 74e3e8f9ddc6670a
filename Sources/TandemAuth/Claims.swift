import TandemCore
import TandemWire

/// What a token says about its bearer (RFC 7519 claims, as the contract's
/// "Auth and origins" section reads them).
public struct Claims: Sendable, Hashable {
    /// `sub`: a stable user id; a refreshed token must carry the same one.
    public var subject: String
    /// `name`: the display name; wins over the URL's `?name=`.
    public var name: String?
    /// `room`: the rooms the token opens. Absent: none.
    public var rooms: RoomScope
    /// `role`: what the bearer may do. Absent: `viewer`, the least one.
    public var role: Role
    /// `exp`: when the token stops being valid, in seconds since 1970 (UTC).
    public var expires: Double
    /// `nbf`: when it starts being valid, if it says.
    public var notBefore: Double?
    /// `iat`: when it was issued, if it says.
    public var issuedAt: Double?

    public init(subject: String, name: String? = nil, rooms: RoomScope, role: Role, expires: Double,
                notBefore: Double? = nil, issuedAt: Double? = nil) {
        self.subject = subject
        self.name = name
        self.rooms = rooms
        self.role = role
        self.expires = expires
        self.notBefore = notBefore
        self.issuedAt = issuedAt
    }

    /// Whether the token opens `room`.
    public func covers(room: String) -> Bool {
        rooms.covers(room: room)
    }

    /// The claims of a token's payload. Unknown claims (`iss`, `aud`, `jti`…)
    /// are ignored: an issuer may add its own.
    public init(json: JSON) throws(TokenFailure) {
        guard case .object = json else { throw .malformed("payload is not a JSON object") }
        guard case let .string(subject)? = json["sub"], !subject.isEmpty else { throw .subjectMissing }
        guard case let .number(expires)? = json["exp"] else { throw .expiryMissing }
        self.subject = subject
        self.expires = expires
        switch json["name"] {
        case nil, .null?: name = nil
        case let .string(name)?: self.name = name
        default: throw .badClaim("name must be a string")
        }
        switch json["room"] {
        case nil, .null?:
            rooms = .rooms([])
        case .string("*")?:
            rooms = .all
        case let .string(id)?:
            rooms = .rooms([id])
        case let .array(items)?:
            var ids = Set<String>()
            for item in items {
                guard case let .string(id) = item else { throw .badClaim("room must be an id, an array of ids or \"*\"") }
                ids.insert(id)
            }
            rooms = ids.contains("*") ? .all : .rooms(ids)
        default:
            throw .badClaim("room must be an id, an array of ids or \"*\"")
        }
        switch json["role"] {
        case nil, .null?: role = .viewer
        case let .string(text)?:
            guard let role = Role(rawValue: text) else { throw .badClaim("role must be viewer, editor or admin") }
            self.role = role
        default: throw .badClaim("role must be viewer, editor or admin")
        }
        notBefore = try Self.time(json, "nbf")
        issuedAt = try Self.time(json, "iat")
    }

    private static func time(_ json: JSON, _ key: String) throws(TokenFailure) -> Double? {
        switch json[key] {
        case nil, .null?: return nil
        case let .number(x)?: return x
        default: throw .badClaim("\(key) must be a number")
        }
    }

    /// The claims as a token's payload.
    public var json: JSON {
        var members = [JSONMember("sub", .string(subject))]
        if let name { members.append(JSONMember("name", .string(name))) }
        switch rooms {
        case .all: members.append(JSONMember("room", "*"))
        case let .rooms(ids) where ids.count == 1: members.append(JSONMember("room", .string(ids.first!)))
        case let .rooms(ids): members.append(JSONMember("room", .array(ids.sorted().map { .string($0) })))
        }
        members.append(JSONMember("role", .string(role.rawValue)))
        if let issuedAt { members.append(JSONMember("iat", .number(issuedAt))) }
        if let notBefore { members.append(JSONMember("nbf", .number(notBefore))) }
        members.append(JSONMember("exp", .number(expires)))
        return .object(members)
    }
}
