// The libwebsockets API as Swift sees it (Debian's libwebsockets-dev, found by pkg-config).
#include <libwebsockets.h>
