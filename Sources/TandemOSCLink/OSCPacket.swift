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
            guard let arg = argv[k] else {
                throw OSCDrop(.malformed, "\(quoted(address)): liblo gave no argument \(k + 1)")
            }
            if let argument = try argument(tag, arg, address: address) {
                arguments.append(argument)
            }
        }
        return arguments
    }

    /// One argument, or `nil` for one that carries nothing (`N`, `I`).
    private static func argument(_ tag: UInt8, _ arg: UnsafeMutablePointer<lo_arg>, address: String) throws(OSCDrop) -> OSCArgument? {
        switch tag {
        case UInt8(ascii: "f"): return .float(arg.pointee.f)
        case UInt8(ascii: "i"): return .int(arg.pointee.i)
        case UInt8(ascii: "d"): return .double(arg.pointee.d)
        case UInt8(ascii: "h"): return .double(Double(arg.pointee.h))
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            let text = UnsafeRawPointer(arg).assumingMemoryBound(to: CChar.self)
            guard let string = String(validatingCString: text) else {
                throw OSCDrop(.malformed, "\(quoted(address)): a string argument that is not UTF-8")
            }
            return .string(string)
        case UInt8(ascii: "c"):
            // An OSC char is a 32-bit slot; liblo keeps it in `i`.
            guard let scalar = Unicode.Scalar(UInt32(bitPattern: arg.pointee.i)), scalar.value != 0 else {
                throw OSCDrop(.malformed, "\(quoted(address)): a char argument (\(arg.pointee.i)) that is not a character")
            }
            return .string(String(Character(scalar)))
        case UInt8(ascii: "T"): return .int(1)
        case UInt8(ascii: "F"): return .int(0)
        case UInt8(ascii: "N"), UInt8(ascii: "I"): return nil
        default:
            let name = unusedTypes[tag] ?? "unknown"
            throw OSCDrop(.wrongType, "\(quoted(address)): type tag '\(Character(Unicode.Scalar(tag)))' (\(name)) is not used by Tandem")
        }
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
