/// Base64url without padding (RFC 4648 §5), as JWTs use it (RFC 7515 §2).
///
/// Decoding is strict: only the 64 url-safe letters, no `=`, no white space,
/// no length that leaves a single letter over, and no stray bits in the last
/// letter. One token has one spelling, so a token that differs from a signed
/// one in any letter is a different token.
public enum Base64URL {
    private static let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each byte as a base64url letter, 0xFF for bytes that are not one.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, letter) in letters.enumerated() { table[Int(letter)] = UInt8(i) }
        return table
    }()

    /// `bytes` in base64url, without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out += [letters[Int(n >> 18)], letters[Int(n >> 12 & 63)], letters[Int(n >> 6 & 63)], letters[Int(n & 63)]]
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out += [letters[Int(n >> 18)], letters[Int(n >> 12 & 63)]]
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out += [letters[Int(n >> 18)], letters[Int(n >> 12 & 63)], letters[Int(n >> 6 & 63)]]
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells, or `nil` when it is not canonical unpadded base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for letter in input {
            let value = values[Int(letter)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // What is left over must be zero bits, or another text would decode the same.
        guard buffer == 0 else { return nil }
        return out
    }
}
