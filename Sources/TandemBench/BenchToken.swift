/// How the bench carries a token to a server with auth on (docs/security.md,
/// "Tokens and roles"): `?token=JWT` on every WebSocket path (a browser cannot
/// set headers there), and what it says when the server refuses the token.
public enum BenchToken {
    /// `path` with `token=` appended to its query, percent-encoded: after `&`
    /// when the path already has a query, after `?` otherwise. `nil` leaves it as it is.
    public static func path(_ path: String, token: String?) -> String {
        guard let token else { return path }
        let separator = path.contains("?") ? (path.hasSuffix("?") || path.hasSuffix("&") ? "" : "&") : "?"
        return path + separator + "token=" + percentEncoded(token)
    }

    /// Every byte but RFC 3986's unreserved ones as %XX: a JWT is base64url and
    /// dots, but a pasted one may carry anything, and `+`, `&` or `#` must not
    /// change the query.
    public static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// The close codes that mean the token (4401: missing, bad, expired) or
    /// its rooms (4403) do not let the bench in.
    public static func isRefusal(closeCode: Int) -> Bool {
        closeCode == 4401 || closeCode == 4403
    }

    /// The HTTP statuses that mean the same for an API call.
    public static func isRefusal(status: Int) -> Bool {
        status == 401 || status == 403
    }

    /// One line naming the code or status and the server's reason, e.g.
    /// `the server refused the token: 4401 token expired`.
    public static func refusal(_ code: String, reason: String) -> String {
        let trimmed = reason.trimmingWhitespace
        return "the server refused the token: \(code)\(trimmed.isEmpty ? "" : " \(trimmed)")"
    }
}

extension String {
    /// Without leading and trailing whitespace (a close reason may end in a newline).
    fileprivate var trimmingWhitespace: String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
