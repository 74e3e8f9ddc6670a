import COpenSSL

/// A Lua script run with EVALSHA, its SHA-1 computed here (as Redis does for SCRIPT LOAD).
public struct RedisScript: Sendable, Hashable {
    public let source: String
    /// Lowercase hex, 40 digits.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        self.sha1 = Self.hexSHA1(Array(source.utf8))
    }

    /// SHA-1 through OpenSSL's libcrypto (already the tokens' HMAC); for script ids, nothing secret.
    private static func hexSHA1(_ message: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let ok = message.withUnsafeBytes { m in
            EVP_Digest(m.baseAddress, m.count, &digest, &length, EVP_sha1(), nil)
        }
        precondition(ok == 1 && length == 20, "OpenSSL's SHA-1 failed")
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(40)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
