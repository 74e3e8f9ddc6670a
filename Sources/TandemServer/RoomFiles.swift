#if canImport(Glibc)
import Glibc
#endif
import TandemCore
import TandemWire

/// Room files: a folder of `*.json`, one room each, in the schema of the protocol.
///
/// Read once at start, in file-name order (byte order). The file name need not
/// match the room's id. Any problem — a file that cannot be read, is not a
/// valid room, or defines an id another file already defined — is an error
/// naming the file (as `DIR/NAME.json`) and, for a schema, the control and field.
enum RoomFiles {
    /// The rooms of `directory`, in file-name order.
    static func load(directory: String) throws(ServerError) -> [RoomSchema] {
        var rooms: [RoomSchema] = []
        var files: [String: String] = [:] // room id → the file that defined it
        for name in try jsonFiles(in: directory) {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let bytes = try read(path)
            let schema: RoomSchema
            do {
                schema = try RoomSchema(validating: SchemaDecoder.room(bytes))
            } catch {
                throw ServerError(description: "\(path): \(error.description)")
            }
            if let earlier = files[schema.id] {
                throw ServerError(description: "\(path): field 'id': room '\(schema.id)' is already defined by \(earlier)")
            }
            files[schema.id] = path
            rooms.append(schema)
        }
        return rooms
    }

    /// The names of the regular `*.json` files in `directory` (hidden files skipped), sorted.
    private static func jsonFiles(in directory: String) throws(ServerError) -> [String] {
        guard let dir = opendir(directory) else {
            throw ServerError(description: "--rooms \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            names.append(name)
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The bytes of the file at `path` (room files are small: at most 1 MiB).
    static func read(_ path: String) throws(ServerError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw ServerError(description: "\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes.append(contentsOf: chunk[..<n]) }
            if bytes.count > 1 << 20 { throw ServerError(description: "\(path): larger than 1 MiB") }
            if n < chunk.count {
                if ferror(file) != 0 { throw ServerError(description: "\(path): cannot read: \(String(cString: strerror(errno)))") }
                return bytes
            }
        }
    }
}
