import TandemCore

/// A `POST /api/rooms` body, read once: the schema it will create or replace
/// and, from that same schema, the room a token must cover.
///
/// Before, the room to authorise came from a first parse of the body's
/// `"id"` and the room applied from `SchemaDecoder`, and the two disagreed
/// three ways (a byte order mark, `"room"` standing for a missing `"id"`,
/// `"id": null`): a room-scoped admin could replace any room. Now there is one
/// reader, so there is nothing to disagree: `room` is `schema.id`, whatever
/// spelling of the body produced it.
public struct RoomBody: Sendable {
    /// The validated schema the request applies.
    public let schema: RoomSchema

    /// The room the request creates or replaces: what authorisation checks.
    public var room: String { schema.id }

    /// The body's schema, validated against `caps`, or the first thing wrong with it.
    public init(_ bytes: some Collection<UInt8>, caps: SchemaCaps = .standard) throws(SchemaError) {
        schema = try RoomSchema(validating: SchemaDecoder.room(bytes), caps: caps)
    }
}
