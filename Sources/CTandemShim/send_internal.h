#ifndef TANDEM_SEND_INTERNAL_H
#define TANDEM_SEND_INTERNAL_H

/* What send.c shares with batch.c: the shim's own, not exported to Swift. */

#include <stddef.h>
#include <sys/uio.h>
#include <libwebsockets.h>

/* The header of a final text frame of `len` payload bytes, written to `h`
 * (room for 10 bytes); returns its length. */
size_t tandem_frame_header(unsigned char *h, size_t len);

/* Copies bytes `skip`.. of the `count` pieces of `iov`, one after the other, to `p`. */
void tandem_gather(unsigned char *p, const struct iovec *iov, int count, size_t skip);

/* Hands bytes `skip`.. of a frame (the `count` pieces of `iov`, `total`
 * bytes in all) to lws as raw bytes, which it sends or buffers ahead of
 * anything else on the connection; counted in tandem_frames_handed_to_lws.
 * Returns 0, or -1 when the connection is broken. */
int tandem_hand_to_lws(struct lws *wsi, const struct iovec *iov, int count, size_t skip, size_t total);

/* tandem_hand_to_lws, or for a socket taken off lws (`wsi` NULL) held by
 * tandem_link until the socket is writable. */
int tandem_hand_over(struct lws *wsi, int fd, const struct iovec *iov, int count, size_t skip, size_t total);

#endif
