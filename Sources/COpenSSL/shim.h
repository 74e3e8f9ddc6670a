// OpenSSL's libcrypto as Swift sees it (Debian's libssl-dev, found by pkg-config):
// the one-shot HMAC, SHA-256 and the constant-time comparison, for tokens;
// SHA-1 for Redis script ids (TandemRedis).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
