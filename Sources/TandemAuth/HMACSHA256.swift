import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL's libcrypto, and the constant-time
/// comparison a signature check needs.
public enum HMACSHA256 {
    /// The length of a tag, in bytes.
    public static let length = 32

    /// The HMAC-SHA256 of `message` under `key`.
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        // An empty array may have no storage, and OpenSSL wants a pointer even
        // for zero bytes: both get at least one byte behind them.
        let keyBytes = key.isEmpty ? [0] : key
        let messageBytes = message.isEmpty ? [0] : message
        let result = keyBytes.withUnsafeBytes { k in
            messageBytes.withUnsafeBytes { m in
                tag.withUnsafeMutableBufferPointer { t in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(key.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                         message.count, t.baseAddress, &written)
                }
            }
        }
        precondition(result != nil && written == UInt32(length), "OpenSSL's HMAC-SHA256 failed")
        return tag
    }

    /// Whether `a` and `b` are equal, in a time that depends only on their
    /// length (`CRYPTO_memcmp`), so that timing tells an attacker nothing about
    /// how much of a forged signature was right.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }
}
