#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import CTandemShim

/// The TLS settings as the C strings handed to lws, which may keep the
/// pointers for the context's lifetime (as `hostName`); freed with the server.
final class TLSOptions {
    let certificate: UnsafeMutablePointer<CChar>
    let privateKey: UnsafeMutablePointer<CChar>
    let ciphers: UnsafeMutablePointer<CChar>
    let tls13Ciphers: UnsafeMutablePointer<CChar>
    let alpn: UnsafeMutablePointer<CChar>

    init(_ settings: TLSSettings) {
        certificate = strdup(settings.certificatePath)
        privateKey = strdup(settings.privateKeyPath)
        ciphers = strdup(TLSOptions.tls12Ciphers)
        tls13Ciphers = strdup(TLSOptions.tls13CipherSuites)
        alpn = strdup(TLSOptions.alpnProtocols)
    }

    deinit {
        free(certificate)
        free(privateKey)
        free(ciphers)
        free(tls13Ciphers)
        free(alpn)
    }

    /// TLS 1.2: forward secrecy (ECDHE) and AEAD only, as Mozilla's
    /// "intermediate" profile (minus DHE, which needs DH parameters to be sound).
    /// Every browser and client library of the last decade has one of these.
    static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// ALPN: HTTP/1.1 only. Debian's lws is built with HTTP/2 and would offer
    /// `h2` to every browser, and with it WebSockets over HTTP/2 (RFC 8441):
    /// paths the server's HTTP handling, limits and close handling are not
    /// built or tested for.
    static let alpnProtocols = "http/1.1"

    /// TLS 1.3: all three suites every TLS 1.3 stack has (OpenSSL's default, said outright).
    static let tls13CipherSuites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
}

extension Server {
    /// Turns `info` into a TLS listener when `--tls-cert`/`--tls-key` are given.
    ///
    /// The files are checked here first, with OpenSSL itself: lws, given a
    /// certificate it cannot use, fails the whole context with nothing but its
    /// own log line, which the start would report as "cannot listen". Here each
    /// failure names the flag, the file and OpenSSL's reason.
    /// TLS 1.2 and 1.3 only; a plain http:// or ws:// request on the port is a
    /// failed handshake, never served.
    func applyTLS(to info: inout lws_context_creation_info) throws(ServerError) {
        guard let settings = config.tls else { return }
        try Self.checkTLSOptions(settings)
        let options = TLSOptions(settings)
        tlsOptions = options
        info.ssl_cert_filepath = UnsafePointer(options.certificate)
        info.ssl_private_key_filepath = UnsafePointer(options.privateKey)
        info.ssl_cipher_list = UnsafePointer(options.ciphers)
        info.tls1_3_plus_cipher_list = UnsafePointer(options.tls13Ciphers)
        info.alpn = UnsafePointer(options.alpn)
        info.ssl_options_set = tandem_tls_legacy_protocols_off()
        info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
    }

    /// Loads the certificate chain and the key into a scratch OpenSSL context,
    /// as lws will, and checks that the key belongs to the certificate.
    static func checkTLSOptions(_ settings: TLSSettings) throws(ServerError) {
        let cert = (TLSSettings.certificateFlag, settings.certificatePath)
        let key = (TLSSettings.privateKeyFlag, settings.privateKeyPath)
        for (flag, path) in [cert, key] where access(path, R_OK) != 0 {
            throw ServerError(description: "\(flag) \(path): cannot read it: \(String(cString: strerror(errno)))")
        }
        guard let context = SSL_CTX_new(TLS_server_method()), let keyAlone = SSL_CTX_new(TLS_server_method()) else {
            throw ServerError(description: "TLS: cannot create an OpenSSL context: \(openSSLReason())")
        }
        defer {
            SSL_CTX_free(context)
            SSL_CTX_free(keyAlone)
        }
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context, settings.certificatePath) == 1 else {
            throw ServerError(description: "\(cert.0) \(cert.1): not a usable PEM certificate (\(openSSLReason()))")
        }
        // Alone first, so that a file that is no key is told apart from a key of another certificate.
        guard SSL_CTX_use_PrivateKey_file(keyAlone, settings.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw ServerError(description: "\(key.0) \(key.1): not a usable unencrypted PEM private key (\(openSSLReason()))")
        }
        guard SSL_CTX_use_PrivateKey_file(context, settings.privateKeyPath, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            throw ServerError(description: "\(key.0) \(key.1) is not the private key of the certificate in \(cert.0) \(cert.1) (\(openSSLReason()))")
        }
    }

    /// The oldest error on OpenSSL's queue, as text; the queue is emptied.
    static func openSSLReason() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        tandem_tls_error_reason(&buffer, UInt(buffer.count))
        return string(buffer)
    }
}
