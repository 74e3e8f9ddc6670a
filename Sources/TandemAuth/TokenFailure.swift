/// Why a token was refused. The description names the failed check in a few
/// words: it is the reason of the WebSocket close 4401 (at most 123 bytes) and
/// the `message` of the HTTP 401, so a person can tell a stale link from a
/// forged one.
public enum TokenFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No token at all (no `?token=`, no `Authorization: Bearer`).
    case missing
    /// Longer than `TokenVerifier.maxLength`.
    case tooLong
    /// Not three base64url parts of JSON objects; the detail says which part failed.
    case malformed(String)
    /// The header's `alg` is not exactly `HS256` (`none` included).
    case algorithm
    /// The header's `typ` is present and is not `JWT`.
    case type
    /// The signature matches none of the configured secrets.
    case badSignature
    /// Past `exp` plus the leeway.
    case expired
    /// Before `nbf` minus the leeway.
    case notYetValid
    /// No `sub`, or not a non-empty string.
    case subjectMissing
    /// No `exp`, or not a number.
    case expiryMissing
    /// A claim of the wrong type or value; the detail names it.
    case badClaim(String)

    public var description: String {
        switch self {
        case .missing: "missing token"
        case .tooLong: "token too long"
        case let .malformed(detail): "malformed token: \(detail)"
        case .algorithm: "algorithm must be HS256"
        case .type: "typ must be JWT"
        case .badSignature: "bad signature"
        case .expired: "token expired"
        case .notYetValid: "token not yet valid"
        case .subjectMissing: "sub missing"
        case .expiryMissing: "exp missing"
        case let .badClaim(detail): "bad claim: \(detail)"
        }
    }

    /// A short fixed name for the metric label `reason`: one per case, so the
    /// number of label values stays bounded whatever tokens strangers send.
    public var label: String {
        switch self {
        case .missing: "missing"
        case .tooLong: "too_long"
        case .malformed: "malformed"
        case .algorithm: "algorithm"
        case .type: "type"
        case .badSignature: "signature"
        case .expired: "expired"
        case .notYetValid: "not_yet_valid"
        case .subjectMissing, .expiryMissing, .badClaim: "claims"
        }
    }

    /// Every label `label` can take, for metrics that list them all.
    public static let labels = ["missing", "too_long", "malformed", "algorithm", "type", "signature", "expired", "not_yet_valid", "claims"]
}
