import TandemWire

/// Checks HS256 JWTs (RFC 7519, RFC 7515 compact form) against the configured
/// secrets: the current one and, while keys rotate, the previous one.
///
/// The checks, in order (the first that fails is the answer): present; at
/// most `maxLength` bytes; three base64url parts; a header that is a JSON
/// object with `alg` exactly `HS256` (so `none`, `HS512`, `RS256`… are refused
/// before any signature is looked at), `typ` absent or `JWT`, no `crit`; a
/// signature that matches one of the secrets (compared in constant time);
/// then the claims (`Claims.init(json:)`) and their times, each with `leeway`
/// seconds of slack for clocks that disagree.
public struct TokenVerifier: Sendable {
    /// Tokens longer than this are refused unread: a real one is a few hundred
    /// bytes, and a URL or a header line much longer would not get here anyway.
    public static let maxLength = 4096
    /// The contract's leeway on `exp` and `nbf`.
    public static let defaultLeeway = 30.0

    /// Current first, then previous; a token signed with any of them passes.
    public let secrets: [[UInt8]]
    /// Seconds of slack on `exp` and `nbf`.
    public let leeway: Double

    public init(secrets: [[UInt8]], leeway: Double = TokenVerifier.defaultLeeway) {
        self.secrets = secrets
        self.leeway = leeway
    }

    /// A token that passed, and which secret signed it.
    public struct Verified: Sendable, Hashable {
        public var claims: Claims
        /// Whether it was the previous secret (a client that should get a new token soon).
        public var byPreviousSecret: Bool
    }

    /// The claims of `token` at `now` (seconds since 1970), or why not.
    public func verify(_ token: String?, now: Double) throws(TokenFailure) -> Verified {
        guard let token, !token.isEmpty else { throw .missing }
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxLength else { throw .tooLong }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three parts separated by dots") }
        let header = try Self.object(parts[0], "header")
        guard header["alg"] == .string("HS256") else { throw .algorithm }
        if let typ = header["typ"], typ != .string("JWT") { throw .type }
        // A critical extension this verifier does not know must not be ignored (RFC 7515 §4.1.11).
        guard header["crit"] == nil else { throw .malformed("unsupported crit header") }
        guard let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            throw .malformed("signature is not base64url")
        }
        let signed = Array(bytes[..<parts[1].endIndex])
        guard let index = secrets.firstIndex(where: { HMACSHA256.equal(HMACSHA256.authenticate(signed, key: $0), signature) }) else {
            throw .badSignature
        }
        let claims = try Claims(json: Self.object(parts[1], "payload"))
        guard now < claims.expires + leeway else { throw .expired }
        if let notBefore = claims.notBefore, now + leeway < notBefore { throw .notYetValid }
        return Verified(claims: claims, byPreviousSecret: index > 0)
    }

    /// A base64url part that must hold a JSON object.
    private static func object(_ part: ArraySlice<UInt8>, _ which: String) throws(TokenFailure) -> JSON {
        guard let decoded = Base64URL.decode(String(decoding: part, as: UTF8.self)) else {
            throw .malformed("\(which) is not base64url")
        }
        guard let json = try? JSONParser.parse(decoded), case .object = json else {
            throw .malformed("\(which) is not a JSON object")
        }
        return json
    }
}
