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

/* Registers a socket taken off lws with the ring, at index `fd`, so that its
 * batched sends skip the kernel's descriptor lookup (IOSQE_FIXED_FILE); a
 * no-op without the ring or past its table. tandem_batch_unfix undoes it and
 * must come before the socket is closed: the ring holds a reference to it. */
void tandem_batch_fix(int fd);
void tandem_batch_unfix(int fd);

#endif
