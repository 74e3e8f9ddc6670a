import TandemWire

/// Signs claims into HS256 JWTs: for `tandem token` and for tests.
public struct TokenMinter: Sendable {
    /// The secret tokens are signed with (the server's current one).
    public let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// The compact JWT carrying `claims`, with the header `{"alg":"HS256","typ":"JWT"}`.
    public func mint(_ claims: Claims) -> String {
        sign(header: ["alg": "HS256", "typ": "JWT"], payload: claims.json)
    }

    /// `header` and `payload` signed as they are, whatever they say: tests
    /// use it to make the tokens a verifier must refuse (`alg: none`, …).
    public func sign(header: JSON, payload: JSON) -> String {
        sign(header: header.bytes, payload: payload.bytes)
    }

    /// The given header and payload bytes, base64url-encoded and signed.
    public func sign(header: [UInt8], payload: [UInt8]) -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(HMACSHA256.authenticate(Array(input.utf8), key: secret))
    }
}
