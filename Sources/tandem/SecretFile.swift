#if canImport(Glibc)
import Glibc
#endif

/// A token secret as an operator gives it: a file's bytes or an environment
/// variable's, one trailing newline dropped (editors and `echo` add one).
enum SecretFile {
    /// HS256 needs a key as long as its hash (RFC 7518 §3.2): 32 bytes.
    static let minimumBytes = 32
    /// A secret file is a few dozen bytes; anything much larger is the wrong file.
    static let maximumBytes = 4096

    /// Why a secret could not be used: the text after "tandem: FLAG PATH: ".
    struct Problem: Error {
        var message: String
    }

    /// The secret in the file at `path`.
    static func read(_ path: String) throws(Problem) -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw Problem(message: "cannot read: \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        let n = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if ferror(file) != 0 { throw Problem(message: "cannot read: \(String(cString: strerror(errno)))") }
        guard n <= maximumBytes else { throw Problem(message: "larger than \(maximumBytes) bytes: not a secret file") }
        return try checked(Array(bytes[..<n]))
    }

    /// `bytes` without one trailing newline (`\n` or `\r\n`), if long enough.
    static func checked(_ bytes: [UInt8]) throws(Problem) -> [UInt8] {
        var secret = bytes
        if secret.last == UInt8(ascii: "\n") {
            secret.removeLast()
            if secret.last == UInt8(ascii: "\r") { secret.removeLast() }
        }
        guard secret.count >= minimumBytes else {
            throw Problem(message: "secret is \(secret.count) bytes, at least \(minimumBytes) are needed")
        }
        return secret
    }
}
