import TandemCore
import TandemWire

/// Room schemas as stored: a room file, `{"id":…,"title":…,"controls":[…]}`.
///
/// Each control is written by the wire's `JSONWriter.append(snapshot:)` with
/// its *initial* state as `state` (that is part of the schema) and without
/// `rev` and `by` (those belong to the committed state, stored apart). It is
/// read back by `SchemaDecoder` and `RoomSchema(validating:)`, so a stored
/// schema passes the same checks as a room file.
public enum SchemaCodec {
    /// The schema as a room file.
    public static func encode(_ schema: RoomSchema) -> [UInt8] {
        var controls: [JSON] = []
        var writer = JSONWriter(capacity: 512)
        for snapshot in Room(schema: schema).snapshot.controls {
            writer.bytes.removeAll(keepingCapacity: true)
            writer.append(snapshot: snapshot)
            // The writer's output is always JSON; were it ever not, the
            // decoder would refuse the stored schema loudly rather than guess.
            guard case let .object(members)? = try? JSONParser.parse(writer.bytes) else {
                controls.append(.null)
                continue
            }
            controls.append(.object(members.filter { $0.key != "rev" && $0.key != "by" }))
        }
        var members = [JSONMember("id", .string(schema.id)), JSONMember("title", .string(schema.title))]
        if schema.layout != .cards { members.append(JSONMember("layout", .string(schema.layout.rawValue))) }
        members.append(JSONMember("controls", .array(controls)))
        let room: JSON = .object(members)
        return room.bytes
    }

    /// A stored schema, validated; the first thing wrong with it otherwise.
    /// Without the caps: a room stored before a cap existed keeps loading.
    public static func decode(_ bytes: some Collection<UInt8>) throws(SchemaError) -> RoomSchema {
        try RoomSchema(validating: SchemaDecoder.room(bytes), caps: .unlimited)
    }
}
