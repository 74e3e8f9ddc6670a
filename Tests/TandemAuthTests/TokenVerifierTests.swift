import Testing
import TandemAuth
import TandemCore
import TandemWire

/// Fixed times and secrets, so each test reads as the case it checks.
private let now = 1_800_000_000.0
private let secret = Array("a current secret of thirty-two bytes or more".utf8)
private let previous = Array("the previous secret, also 32 bytes or more".utf8)
private let verifier = TokenVerifier(secrets: [secret, previous])

private func claims(room: JSON = "synth", role: JSON = "editor", exp: JSON = .number(now + 3600),
                    extra: [JSONMember] = []) -> JSON {
    .object([JSONMember("sub", "u1"), JSONMember("name", "Ann"), JSONMember("room", room),
             JSONMember("role", role), JSONMember("exp", exp)] + extra)
}

private func token(header: JSON = ["alg": "HS256", "typ": "JWT"], payload: JSON = claims(), key: [UInt8] = secret) -> String {
    TokenMinter(secret: key).sign(header: header, payload: payload)
}

private func failure(_ token: String?, at time: Double = now) -> TokenFailure? {
    do {
        _ = try verifier.verify(token, now: time)
        return nil
    } catch {
        return error
    }
}

@Suite("Token verification")
struct TokenVerifierTests {
    @Test("RFC 7515 appendix A.1's HS256 example passes the signature check (then lacks sub)")
    func rfc7515Example() throws {
        let key = try #require(Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"))
        let jws = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
            + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let signingInput = Array(jws.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        #expect(Base64URL.encode(HMACSHA256.authenticate(signingInput, key: key)) == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(throws: TokenFailure.subjectMissing) { try TokenVerifier(secrets: [key]).verify(jws, now: 1_300_819_000) }
        #expect(throws: TokenFailure.badSignature) { try TokenVerifier(secrets: [secret]).verify(jws, now: 1_300_819_000) }
    }

    @Test("jwt.io's example token passes the signature check with its secret (then lacks exp)")
    func jwtIOExample() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        #expect(throws: TokenFailure.expiryMissing) { try TokenVerifier(secrets: [Array("your-256-bit-secret".utf8)]).verify(jwt, now: now) }
    }

    @Test("a minted token verifies and gives back its claims")
    func mintedTokenVerifies() throws {
        let minted = Claims(subject: "u1", name: "Ann", rooms: .rooms(["synth", "demo"]), role: .admin, expires: now + 60,
                            notBefore: now - 1, issuedAt: now - 1)
        let verified = try verifier.verify(TokenMinter(secret: secret).mint(minted), now: now)
        #expect(verified.claims == minted)
        #expect(!verified.byPreviousSecret)
    }

    @Test("a token signed with the previous secret passes, and says so")
    func previousSecret() throws {
        let verified = try verifier.verify(token(key: previous), now: now)
        #expect(verified.claims.subject == "u1")
        #expect(verified.byPreviousSecret)
        #expect(throws: TokenFailure.badSignature) { try TokenVerifier(secrets: [secret]).verify(token(key: previous), now: now) }
    }

    @Test("a token signed with another secret is refused as a bad signature")
    func wrongSecret() {
        #expect(failure(token(key: Array("somebody else's secret, thirty-two bytes".utf8))) == .badSignature)
    }

    @Test("alg none is refused whatever the signature, empty or not")
    func algNone() {
        let none: JSON = ["alg": "none", "typ": "JWT"]
        let unsigned = Base64URL.encode(none.bytes) + "." + Base64URL.encode(claims().bytes) + "."
        #expect(failure(unsigned) == .algorithm)
        #expect(failure(token(header: none)) == .algorithm)
        #expect(failure(token(header: ["alg": "None"])) == .algorithm)
    }

    @Test("every algorithm but HS256 is refused, even with a valid HMAC-SHA256 signature",
          arguments: ["HS512", "HS384", "RS256", "ES256", "PS256", "hs256", "HS256 ", ""])
    func otherAlgorithms(alg: String) {
        #expect(failure(token(header: ["alg": .string(alg), "typ": "JWT"])) == .algorithm)
    }

    @Test("a header without alg, or with alg not a string, is refused")
    func algMissing() {
        #expect(failure(token(header: ["typ": "JWT"])) == .algorithm)
        #expect(failure(token(header: ["alg": ["HS256"]])) == .algorithm)
    }

    @Test("typ may be absent, must be JWT when present; crit is refused")
    func typAndCrit() {
        #expect(failure(token(header: ["alg": "HS256"])) == nil)
        #expect(failure(token(header: ["alg": "HS256", "typ": "JOSE"])) == .type)
        #expect(failure(token(header: ["alg": "HS256", "crit": ["exp"]])) == .malformed("unsupported crit header"))
    }

    @Test("a payload changed after signing is a bad signature")
    func tamperedPayload() {
        let good = token()
        let parts = good.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(claims(role: "admin").bytes)
        #expect(failure([parts[0], forged, parts[2]].joined(separator: ".")) == .badSignature)
        #expect(failure(good) == nil)
    }

    @Test("a signature with any one letter changed is refused")
    func tamperedSignature() {
        let good = token()
        let prefix = good[..<good.lastIndex(of: ".")!]
        let signature = Array(good[good.index(after: good.lastIndex(of: ".")!)...])
        for i in signature.indices {
            var changed = signature
            changed[i] = changed[i] == "A" ? "B" : "A"
            let result = failure(prefix + "." + String(changed))
            #expect(result == .badSignature || result == .malformed("signature is not base64url"))
        }
    }

    @Test("missing and empty tokens are 'missing token'")
    func missing() {
        #expect(failure(nil) == .missing)
        #expect(failure("") == .missing)
        #expect(TokenFailure.missing.description == "missing token")
    }

    @Test("tokens over 4 KiB are refused unread")
    func huge() {
        let long = token(payload: claims(extra: [JSONMember("pad", .string(String(repeating: "x", count: 5000)))]))
        #expect(failure(long) == .tooLong)
        #expect(failure(String(repeating: "a", count: 1_000_000)) == .tooLong)
    }

    @Test("malformed tokens name the part that failed",
          arguments: [("abc", "expected three parts separated by dots"),
                      ("a.b", "expected three parts separated by dots"),
                      ("a.b.c.d", "expected three parts separated by dots"),
                      ("e30=.e30.AAAA", "header is not base64url"),
                      ("!!.e30.AAAA", "header is not base64url"),
                      ("bm90IGpzb24.e30.AAAA", "header is not a JSON object"),
                      ("WzFd.e30.AAAA", "header is not a JSON object")] as [(String, String)])
    func malformed(text: String, detail: String) {
        #expect(failure(text) == .malformed(detail))
    }

    @Test("a signed payload that is not a JSON object, or not base64url, is malformed")
    func malformedPayload() {
        let minter = TokenMinter(secret: secret)
        #expect(failure(minter.sign(header: Array(#"{"alg":"HS256"}"#.utf8), payload: Array("not json".utf8)))
            == .malformed("payload is not a JSON object"))
        #expect(failure(minter.sign(header: Array(#"{"alg":"HS256"}"#.utf8), payload: Array("[1,2]".utf8)))
            == .malformed("payload is not a JSON object"))
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        let input = header + ".!!"
        let signature = Base64URL.encode(HMACSHA256.authenticate(Array(input.utf8), key: secret))
        #expect(failure(input + "." + signature) == .malformed("payload is not base64url"))
        #expect(failure(header + ".e30.!!") == .malformed("signature is not base64url"))
    }

    @Test("exp is enforced with 30 s of leeway")
    func expiry() {
        let expired = token(payload: claims(exp: .number(now - 10)))
        #expect(failure(expired, at: now) == nil)
        #expect(failure(expired, at: now + 19.9) == nil)
        #expect(failure(expired, at: now + 20) == .expired)
        #expect(failure(token(payload: claims(exp: .number(now - 3600)))) == .expired)
        #expect(TokenFailure.expired.description == "token expired")
    }

    @Test("a verifier's leeway can be set (the server's --auth-leeway)")
    func customLeeway() {
        let strict = TokenVerifier(secrets: [secret], leeway: 0)
        #expect(throws: TokenFailure.expired) { try strict.verify(token(payload: claims(exp: .number(now))), now: now) }
        #expect(throws: Never.self) { try strict.verify(token(payload: claims(exp: .number(now + 1))), now: now) }
    }

    @Test("nbf is enforced with 30 s of leeway")
    func notBefore() {
        let later = token(payload: claims(extra: [JSONMember("nbf", .number(now + 40))]))
        #expect(failure(later, at: now) == .notYetValid)
        #expect(failure(later, at: now + 10) == nil)
        #expect(TokenFailure.notYetValid.description == "token not yet valid")
    }

    @Test("sub and exp are required; role, room, name, nbf and iat are type-checked")
    func claimChecks() {
        func payload(_ members: [JSONMember]) -> String { token(payload: .object(members)) }
        let exp = JSONMember("exp", .number(now + 60))
        #expect(failure(payload([exp])) == .subjectMissing)
        #expect(failure(payload([JSONMember("sub", ""), exp])) == .subjectMissing)
        #expect(failure(payload([JSONMember("sub", 7), exp])) == .subjectMissing)
        #expect(failure(payload([JSONMember("sub", "u")])) == .expiryMissing)
        #expect(failure(payload([JSONMember("sub", "u"), JSONMember("exp", "soon")])) == .expiryMissing)
        #expect(failure(token(payload: claims(role: "owner"))) == .badClaim("role must be viewer, editor or admin"))
        #expect(failure(token(payload: claims(room: 7))) == .badClaim("room must be an id, an array of ids or \"*\""))
        #expect(failure(token(payload: claims(room: ["a", 7]))) == .badClaim("room must be an id, an array of ids or \"*\""))
        #expect(failure(token(payload: claims(extra: [JSONMember("iat", "yesterday")]))) == .badClaim("iat must be a number"))
        #expect(TokenFailure.subjectMissing.description == "sub missing")
    }

    @Test("a token without role is a viewer's; without room it opens no room")
    func defaults() throws {
        let verified = try verifier.verify(token(payload: ["sub": "u", "exp": .number(now + 60)]), now: now)
        #expect(verified.claims.role == .viewer)
        #expect(!verified.claims.covers(room: "demo"))
        #expect(verified.claims.name == nil)
    }

    @Test("room coverage: one id, an array of ids, \"*\", and \"*\" inside an array")
    func coverage() throws {
        func covers(_ room: JSON, _ id: String) throws -> Bool {
            try verifier.verify(token(payload: claims(room: room)), now: now).claims.covers(room: id)
        }
        #expect(try covers("synth", "synth"))
        #expect(try !covers("synth", "demo"))
        #expect(try !covers("synth", "synth2"))
        #expect(try covers(["synth", "demo"], "demo"))
        #expect(try !covers(["synth", "demo"], "other"))
        #expect(try !covers([], "demo"))
        #expect(try covers("*", "anything"))
        #expect(try covers(["x", "*"], "anything"))
    }

    @Test("every failure's description fits a WebSocket close reason")
    func reasonsFit() {
        let failures: [TokenFailure] = [.missing, .tooLong, .malformed("expected three parts separated by dots"), .algorithm,
                                        .type, .badSignature, .expired, .notYetValid, .subjectMissing, .expiryMissing,
                                        .badClaim("room must be an id, an array of ids or \"*\"")]
        for failure in failures {
            #expect(failure.description.utf8.count <= 123)
            #expect(TokenFailure.labels.contains(failure.label))
        }
    }
}
