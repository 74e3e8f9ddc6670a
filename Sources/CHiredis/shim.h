// hiredis as Swift sees it (Debian's libhiredis-dev 0.14, in /usr/include):
// the reply type and the async context. The libuv adapter is static inline in
// <hiredis/adapters/libuv.h>; CTandemRedis calls it from C.
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
