// OpenSSL macros Swift cannot import, for the server's TLS settings and the
// bench's https client. OpenSSL's functions themselves come through
// CLibWebSockets (lws' header includes <openssl/ssl.h>).
#ifndef TANDEM_TLS_H
#define TANDEM_TLS_H

/// SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1: the SSL_OP_* bits are
/// function-like macros (SSL_OP_BIT). For lws' `ssl_options_set`: TLS 1.2 and 1.3 only.
long tandem_tls_legacy_protocols_off(void);

/// SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) is a macro over SSL_CTX_ctrl.
/// Returns 1 on success. `ctx` is an SSL_CTX *.
int tandem_tls_require_tls12(void *ctx);

/// SSL_set_tlsext_host_name(ssl, name) is a macro over SSL_ctrl: the SNI a client
/// sends so that a server with several certificates picks the right one. Returns 1 on success.
int tandem_tls_set_server_name(void *ssl, const char *name);

/// Writes the oldest error on OpenSSL's queue as text into `buf` (NUL-terminated)
/// and empties the queue; "no reason given" when it is empty. ERR_error_string_n
/// is a function, but the server and the bench both want the same sentence, and
/// this is the one place that links OpenSSL for both.
void tandem_tls_error_reason(char *buf, unsigned long len);

#endif
