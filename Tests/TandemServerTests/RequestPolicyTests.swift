import Testing
@testable import TandemServer

/// The Host and Origin rules with no sockets: a configuration in, verdicts out.
@Suite("Request policy (origins and hosts)")
struct RequestPolicyTests {
    private func policy(bind: String = "127.0.0.1", origins: [String] = [], hosts: [String] = [], tls: Bool = false) -> RequestPolicy {
        var access = AccessSettings()
        access.allowedOrigins = origins
        access.publicHosts = hosts
        return RequestPolicy(access: access, bindAddress: bind, tls: tls)
    }

    private func status(_ p: RequestPolicy, host: String?, origin: String? = nil, checksOrigin: Bool = true,
                        loopbackPeer: Bool = true, http11: Bool = true) -> Int {
        p.judge(host: host, origin: origin, checksOrigin: checksOrigin, peerIsLoopback: loopbackPeer, http11: http11).status
    }

    @Test("a server bound to loopback answers loopback names with or without a port, and 421 to any other name")
    func loopbackNames() {
        let p = policy()
        for host in ["localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:8080", "LOCALHOST", "localhost."] {
            #expect(status(p, host: host) == 0, "\(host)")
        }
        for host in ["attacker.example", "attacker.example:8080", "localhost.attacker.example", "192.0.2.2:8080"] {
            #expect(status(p, host: host) == 421, "\(host)")
        }
    }

    @Test("a missing Host is 400 on HTTP/1.1 and passes on HTTP/1.0; a Host that is not a host name is 400")
    func missingOrBadHost() {
        let p = policy()
        #expect(status(p, host: nil, http11: true) == 400)
        #expect(status(p, host: nil, http11: false) == 0)
        for host in ["", "a b", "exa mple:80", "host:port", "host:99999", "[::1", "host/path", "a,b"] {
            #expect(status(p, host: host) == 400, "\(host)")
        }
    }

    @Test("declared public hosts pass, with any port unless the declaration names one; loopback names only from loopback peers")
    func publicHosts() {
        let p = policy(bind: "0.0.0.0", hosts: ["tandem.example", "alt.example:8443"])
        #expect(status(p, host: "tandem.example", loopbackPeer: false) == 0)
        #expect(status(p, host: "Tandem.Example:8080", loopbackPeer: false) == 0)
        #expect(status(p, host: "alt.example:8443", loopbackPeer: false) == 0)
        #expect(status(p, host: "alt.example:8080", loopbackPeer: false) == 421)
        #expect(status(p, host: "attacker.example", loopbackPeer: false) == 421)
        #expect(status(p, host: "localhost:8080", loopbackPeer: false) == 421)
        #expect(status(p, host: "localhost:8080", loopbackPeer: true) == 0)
    }

    @Test("a server bound to loopback with declared names answers both (a proxy on the same machine)")
    func loopbackWithPublicHosts() {
        let p = policy(hosts: ["tandem.example"])
        #expect(status(p, host: "tandem.example") == 0)
        #expect(status(p, host: "localhost") == 0)
        #expect(status(p, host: "attacker.example") == 421)
    }

    @Test("a server bound to all addresses with no declared names cannot judge Host and takes any")
    func openHost() {
        let p = policy(bind: "0.0.0.0")
        #expect(status(p, host: "anything.example", loopbackPeer: false) == 0)
    }

    @Test("the server's own origin passes: same scheme, host and port as the Host header, default ports made explicit")
    func ownOrigin() {
        let p = policy()
        #expect(status(p, host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080") == 0)
        #expect(status(p, host: "localhost:8080", origin: "http://LOCALHOST:8080/") == 0)
        #expect(status(p, host: "localhost", origin: "http://localhost:80") == 0)
        #expect(status(p, host: "localhost:8080", origin: "http://localhost:8081") == 403)
        #expect(status(p, host: "localhost:8080", origin: "https://localhost:8080") == 403)
        #expect(status(p, host: "localhost:8080", origin: "http://127.0.0.1:8080") == 403)
        let tls = policy(tls: true)
        #expect(status(tls, host: "localhost:8443", origin: "https://localhost:8443") == 0)
        #expect(status(tls, host: "localhost:8443", origin: "http://localhost:8443") == 403)
        #expect(status(tls, host: "localhost", origin: "https://localhost:443") == 0)
    }

    @Test("a foreign origin is 403, an allowed one passes, * allows any, and null or garbage never matches")
    func foreignOrigins() {
        let p = policy(origins: ["https://app.example", "http://tools.example:3000"])
        #expect(status(p, host: "localhost:8080", origin: "http://evil.example") == 403)
        #expect(status(p, host: "localhost:8080", origin: "https://app.example") == 0)
        #expect(status(p, host: "localhost:8080", origin: "https://app.example:443") == 0)
        #expect(status(p, host: "localhost:8080", origin: "http://app.example") == 403)
        #expect(status(p, host: "localhost:8080", origin: "http://tools.example:3000") == 0)
        #expect(status(p, host: "localhost:8080", origin: "null") == 403)
        #expect(status(p, host: "localhost:8080", origin: "file://") == 403)
        let any = policy(origins: ["*"])
        #expect(any.anyOrigin)
        #expect(status(any, host: "localhost:8080", origin: "http://evil.example") == 0)
        #expect(status(any, host: "localhost:8080", origin: "null") == 0)
    }

    @Test("no Origin passes, and GET-like requests are not judged by their Origin")
    func originNotChecked() {
        let p = policy()
        #expect(status(p, host: "localhost:8080", origin: nil) == 0)
        #expect(status(p, host: "localhost:8080", origin: "http://evil.example", checksOrigin: false) == 0)
        // The Host rule still applies to them.
        #expect(status(p, host: "attacker.example", origin: nil, checksOrigin: false) == 421)
    }

    @Test("refusals carry a code and a message that says which flag opens the door")
    func messages() {
        let p = policy()
        let host = p.judge(host: "attacker.example", origin: nil, checksOrigin: false, peerIsLoopback: true, http11: true)
        #expect(host.code == "misdirected")
        #expect(host.message.contains("--public-host"))
        let origin = p.judge(host: "localhost", origin: "http://evil.example", checksOrigin: true, peerIsLoopback: true, http11: true)
        #expect(origin.code == "foreign_origin")
        #expect(origin.message.contains("--allow-origin"))
        #expect(origin.message.contains("http://evil.example"))
        let quoted = p.judge(host: "bad\u{1}host", origin: nil, checksOrigin: false, peerIsLoopback: true, http11: true)
        #expect(!quoted.message.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test("loopback listening addresses are told from others")
    func loopbackAddresses() {
        for a in ["127.0.0.1", "127.1.2.3", "::1", "localhost"] { #expect(RequestPolicy.isLoopbackAddress(a), "\(a)") }
        for a in ["0.0.0.0", "::", "192.0.2.2", "fd00::2"] { #expect(!RequestPolicy.isLoopbackAddress(a), "\(a)") }
    }

    @Test("origins parse to scheme, host and explicit port; anything but http(s) with a bare host is refused")
    func originParsing() {
        #expect(WebOrigin(parsing: "https://Example.com") == WebOrigin(scheme: "https", host: "example.com", port: 443))
        #expect(WebOrigin(parsing: "http://[::1]:8080") == WebOrigin(scheme: "http", host: "[::1]", port: 8080))
        for bad in ["example.com", "ftp://example.com", "http://", "http://a/b", "http://a:b", "null", "*"] {
            #expect(WebOrigin(parsing: bad) == nil, "\(bad)")
        }
    }
}
