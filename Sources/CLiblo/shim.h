// liblo as Swift sees it (Debian's liblo-dev 0.31, in /usr/include/lo): messages
// built, serialised and deserialised, and addresses to send them to.
#include <lo/lo.h>
