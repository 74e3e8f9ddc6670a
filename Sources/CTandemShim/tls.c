#include "tandem_tls.h"

#include <libwebsockets.h>
#include <openssl/err.h>
#include <stdio.h>

long tandem_tls_legacy_protocols_off(void) {
    return (long)(SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1);
}

int tandem_tls_require_tls12(void *ctx) {
    return (int)SSL_CTX_set_min_proto_version((SSL_CTX *)ctx, TLS1_2_VERSION);
}

int tandem_tls_set_server_name(void *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name((SSL *)ssl, name);
}

void tandem_tls_error_reason(char *buf, unsigned long len) {
    if (!buf || !len) return;
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (!code) {
        snprintf(buf, len, "no reason given");
        return;
    }
    ERR_error_string_n(code, buf, len);
}
