import CLiblo
import Glibc
import TandemOSC

/// OSC packets through liblo: liblo writes and reads every message; only a
/// bundle's framing is walked here (`OSCPacket+Bundle.swift`).
public enum OSCPacket {
    /// One message as an OSC packet (`lo_message_new`, `lo_message_add_*`,
    /// `lo_message_serialise`): `.float` as `f`, `.int` as `i`, `.string` as `s`, `.double` as `d`.
    ///
    /// A string is cut at its first NUL, as C reads it.
    public static func encode(_ message: OSCMessage) -> [UInt8] {
        guard let m = lo_message_new() else { fatalError("liblo: out of memory building an OSC message") }
        defer { lo_message_free(m) }
        for argument in message.arguments {
            let result: Int32
            switch argument {
            case let .float(f): result = lo_message_add_float(m, f)
            case let .int(i): result = lo_message_add_int32(m, i)
            case let .string(s): result = lo_message_add_string(m, s)
            case let .double(d): result = lo_message_add_double(m, d)
            }
            if result != 0 { fatalError("liblo: out of memory adding an OSC argument") }
        }
        return message.address.withCString { path in
            var size = 0
            guard let bytes = lo_message_serialise(m, path, nil, &size) else {
                fatalError("liblo: out of memory serialising an OSC message")
            }
            defer { free(bytes) }
            return [UInt8](UnsafeRawBufferPointer(start: bytes, count: size))
        }
    }

    /// The messages of one datagram, in order: a message, or a bundle whose
    /// elements (messages, and bundles nested up to 8 deep) are walked in order.
    ///
    /// Time tags are ignored: a bundle's messages are applied at once, as they
    /// arrive, whatever time the bundle names. liblo parses each message.
    ///
    /// Type tags become arguments as follows: `f` `i` `d` `s` as themselves;
    /// `h` (int64) as a double; `S` (symbol) as a string; `c` (char) as a string
    /// of that one character; `T` as int 1 and `F` as int 0; `N` and `I` (nil,
    /// impulse) as no argument, so a Pd or Max "bang" is a message with no argument.
    /// A blob, time tag, MIDI or RGBA argument (`b` `t` `m` `r`) fails the whole
    /// datagram with `wrong_type`; anything that is not OSC, or a string that is
    /// not UTF-8, fails it with `malformed`.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<[OSCMessage], OSCDrop> {
        Result { () throws(OSCDrop) in
            var messages: [OSCMessage] = []
            try element(bytes, depth: 0, into: &messages)
            return messages
        }
    }

    /// The messages of one datagram; see `decode(_:)` for an `UnsafeRawBufferPointer`.
    public static func decode(_ bytes: [UInt8]) -> Result<[OSCMessage], OSCDrop> {
        bytes.withUnsafeBytes { decode($0) }
    }

    // MARK: one message, by liblo

    /// One message, parsed by `lo_message_deserialise`; its path found by `lo_get_path`.
    static func message(_ bytes: UnsafeRawBufferPointer) throws(OSCDrop) -> OSCMessage {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw OSCDrop(.malformed, "an empty OSC packet")
        }
        // liblo copies the bytes it keeps; it only reads these.
        let data = UnsafeMutableRawPointer(mutating: base)
        var result: Int32 = 0
        guard let m = lo_message_deserialise(data, bytes.count, &result) else {
            if result == LO_EINVALIDARG, let drop = unusedType(data, bytes.count) { throw drop }
            throw OSCDrop(.malformed, "not an OSC packet (liblo: \(LibloError.words(result)))")
        }
        defer { lo_message_free(m) }
        guard let path = lo_get_path(data, bytes.count) else {
            throw OSCDrop(.malformed, "not an OSC packet (liblo: no address)")
        }
        guard let address = String(validatingCString: path) else {
            throw OSCDrop(.malformed, "an OSC address that is not UTF-8")
        }
        return OSCMessage(address, try arguments(of: m, address: address))
    }

    /// The message's arguments by their type tags (the table in `decode(_:)`).
    private static func arguments(of m: lo_message, address: String) throws(OSCDrop) -> [OSCArgument] {
        let count = Int(lo_message_get_argc(m))
        guard count > 0 else { return [] }
        guard let types = lo_message_get_types(m), let argv = lo_message_get_argv(m) else {
            throw OSCDrop(.malformed, "\(quoted(address)): liblo gave no arguments")
        }
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(count)
        for k in 0..<count {
            let tag = UInt8(bitPattern: types[k])
            if let argument = try argument(tag, argv[k], address: address) {
                arguments.append(argument)
            }
        }
        return arguments
    }

    /// One argument, or `nil` for one that carries nothing (`N`, `I`).
    /// liblo gives no data for `T` `F` `N` `I`: their tag is their value.
    private static func argument(_ tag: UInt8, _ data: UnsafeMutablePointer<lo_arg>?, address: String) throws(OSCDrop) -> OSCArgument? {
        switch tag {
        case UInt8(ascii: "T"): return .int(1)
        case UInt8(ascii: "F"): return .int(0)
        case UInt8(ascii: "N"), UInt8(ascii: "I"): return nil
        default: break
        }
        if let name = unusedTypes[tag] {
            throw unused(tag, name, address: address)
        }
        guard let data else {
            throw OSCDrop(.malformed, "\(quoted(address)): liblo gave no data for type tag '\(Character(Unicode.Scalar(tag)))'")
        }
        // Read as many bytes as the tag has, never the whole union: an `i` at
        // the end of liblo's copy has 4 bytes behind it, not `lo_arg`'s 8.
        let arg = UnsafeRawPointer(data)
        switch tag {
        case UInt8(ascii: "f"): return .float(arg.loadUnaligned(as: Float.self))
        case UInt8(ascii: "i"): return .int(arg.loadUnaligned(as: Int32.self))
        case UInt8(ascii: "d"): return .double(arg.loadUnaligned(as: Double.self))
        case UInt8(ascii: "h"): return .double(Double(arg.loadUnaligned(as: Int64.self)))
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            let text = arg.assumingMemoryBound(to: CChar.self)
            guard let string = String(validatingCString: text) else {
                throw OSCDrop(.malformed, "\(quoted(address)): a string argument that is not UTF-8")
            }
            return .string(string)
        case UInt8(ascii: "c"):
            // An OSC char is a 32-bit slot; liblo keeps it in `i`.
            let code = arg.loadUnaligned(as: UInt32.self)
            guard let scalar = Unicode.Scalar(code), scalar.value != 0 else {
                throw OSCDrop(.malformed, "\(quoted(address)): a char argument (\(code)) that is not a character")
            }
            return .string(String(Character(scalar)))
        default:
            throw OSCDrop(.malformed, "\(quoted(address)): unknown type tag '\(Character(Unicode.Scalar(tag)))'")
        }
    }

    private static func unused(_ tag: UInt8, _ name: String, address: String) -> OSCDrop {
        OSCDrop(.wrongType, "\(quoted(address)): type tag '\(Character(Unicode.Scalar(tag)))' (\(name)) is not used by Tandem")
    }

    /// When liblo cannot read an argument: a type Tandem does not use among the
    /// tags (liblo 0.31 cannot read `r`) makes it `wrong_type`, not `malformed`.
    /// The tags are found by liblo's `lo_get_path` and `lo_strsize`; nothing else is parsed.
    private static func unusedType(_ data: UnsafeMutableRawPointer, _ count: Int) -> OSCDrop? {
        guard let path = lo_get_path(data, count) else { return nil }
        let start = Int(lo_strsize(path))
        guard start < count else { return nil }
        let rest = UnsafeRawBufferPointer(start: data + start, count: count - start)
        guard rest.first == UInt8(ascii: ","), let end = rest.firstIndex(of: 0) else { return nil }
        guard let tag = rest[1..<end].first(where: { unusedTypes[$0] != nil }) else { return nil }
        return unused(tag, unusedTypes[tag]!, address: String(decoding: UnsafeRawBufferPointer(start: path, count: strlen(path)), as: UTF8.self))
    }

    /// The type tags liblo reads that Tandem has no argument for.
    private static let unusedTypes: [UInt8: String] = [
        UInt8(ascii: "b"): "blob", UInt8(ascii: "t"): "timetag",
        UInt8(ascii: "m"): "midi", UInt8(ascii: "r"): "rgba",
    ]

    /// An address as a drop's sentence quotes it: at most 96 characters, like `OSCIn`.
    static func quoted(_ address: String) -> String {
        address.count > 96 ? String(address.prefix(95)) + "…" : address
    }
}
