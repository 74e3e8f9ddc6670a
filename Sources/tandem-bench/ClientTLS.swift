#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim

/// The bench's side of TLS: `wss://` through lws, and `https://` for the
/// admin API calls through OpenSSL on HTTP.swift's blocking socket.
///
/// Certificates are checked against the system's trust store and the URL's
/// host, as a browser would. `--insecure` accepts any certificate instead
/// (self-signed, expired, for another name): it exists for tests against a
/// throw-away certificate and must not be used across a network you do not own.
enum ClientTLS {
    /// lws' `ssl_connection` flags for one WebSocket connection.
    static func connectionFlags(_ flags: Flags) -> Int32 {
        guard flags.tls else { return 0 }
        var bits = LCCSCF_USE_SSL.rawValue
        if flags.insecure {
            bits |= LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
                | LCCSCF_ALLOW_EXPIRED.rawValue | LCCSCF_ALLOW_INSECURE.rawValue
        }
        return Int32(bitPattern: bits)
    }

    /// One handshake before any connection is opened: a certificate the bench
    /// cannot trust stops the run at once with OpenSSL's reason, rather than as
    /// thousands of failed connections. Any HTTP answer will do.
    static func checkServer(_ flags: Flags) throws(HTTP.Failure) {
        guard flags.tls else { return }
        do {
            _ = try HTTP.request(flags, method: "GET", path: "/healthz")
        } catch where !error.connecting {
            return
        }
    }

    /// What to say when the certificate check fails, beside OpenSSL's reason.
    static let insecureHint = "for a test server's throw-away certificate, --insecure skips this check"
}

/// One TLS session over a connected socket, closed with it.
final class TLSStream {
    private let context: OpaquePointer
    private let ssl: OpaquePointer

    /// Runs the handshake on `fd`; a failure is `connecting` (the server was not reached as asked).
    init(fd: Int32, host: String, port: Int, insecure: Bool) throws(HTTP.Failure) {
        let failure = { (why: String) in HTTP.Failure(description: "cannot connect to https://\(host):\(port): \(why)", connecting: true) }
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw failure("cannot create an OpenSSL context") }
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw failure("cannot create an OpenSSL session")
        }
        self.context = context
        self.ssl = ssl
        _ = tandem_tls_require_tls12(UnsafeMutableRawPointer(context))
        if insecure {
            SSL_set_verify(ssl, SSL_VERIFY_NONE, nil)
        } else {
            SSL_CTX_set_default_verify_paths(context)
            SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
            // The name (or IP address) in the URL must be the certificate's.
            SSL_set1_host(ssl, host)
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) != 1 && inet_pton(AF_INET6, host, &v6) != 1 {
            _ = tandem_tls_set_server_name(UnsafeMutableRawPointer(ssl), host) // SNI takes names only
        }
        SSL_set_fd(ssl, fd)
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else {
            let verdict = SSL_get_verify_result(ssl)
            if verdict != X509_V_OK {
                let why = String(cString: X509_verify_cert_error_string(verdict))
                throw failure("the server's certificate is not trusted: \(why) (\(ClientTLS.insecureHint))")
            }
            throw failure("TLS handshake failed: \(Self.reason())")
        }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Writes all of `bytes`; `false` if the connection failed.
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + sent, Int32($0.count - sent)) }
            guard n > 0 else { return false }
            sent += Int(n)
        }
        return true
    }

    /// Reads into `buffer`: a count, 0 at the end of the response, -1 on an error.
    func read(_ buffer: inout [UInt8]) -> Int {
        let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if n > 0 { return Int(n) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_ZERO_RETURN: return 0
        // A server that closes without a close_notify (after Connection: close) has still sent everything.
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0: return 0
        default: return -1
        }
    }

    /// The oldest error on OpenSSL's queue, as text.
    static func reason() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        tandem_tls_error_reason(&buffer, UInt(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
