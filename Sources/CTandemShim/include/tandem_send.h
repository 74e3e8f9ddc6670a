#ifndef TANDEM_SEND_H
#define TANDEM_SEND_H

#include <stddef.h>
#include <libwebsockets.h>

/* Sends one WebSocket text frame, server to client (unmasked), whose payload
 * is the three pieces a, b and c one after the other (any may be empty),
 * straight to the socket in one send() (sendmsg() past 4 KiB) with the frame
 * header in front.
 * Whatever the socket does not take at once is handed to lws as raw bytes:
 * lws sends its buffered bytes before anything else it writes on that
 * connection, so frames never interleave. When lws already holds unsent
 * bytes for the connection the whole frame goes behind them.
 *
 * `fd` is the connection's socket (the caller keeps it: asking lws for it
 * costs a cache miss per frame). Plain TCP only: under TLS every byte must
 * go through lws (OpenSSL).
 * With `wsi` NULL the socket is one taken off lws (tandem_link.h): the
 * rest is held by tandem_link instead, and sent when the socket is writable.
 * Returns 1 when the frame went out in that one send, 0 when lws took some
 * or all of it, -1 when the connection is broken (lws finds out by itself). */
int tandem_send_text(struct lws *wsi, int fd, const unsigned char *a, size_t na,
                     const unsigned char *b, size_t nb,
                     const unsigned char *c, size_t nc);

/* Whether unsent bytes of earlier frames wait on the connection: in lws
 * (`wsi`), or for a socket taken off lws (`wsi` NULL) in tandem_link. */
int tandem_holds_unsent(struct lws *wsi, int fd);

/* The sends tandem_send_text made (send or sendmsg calls) and the frames it handed
 * to lws in part or whole, since the process started. */
unsigned long long tandem_direct_sends(void);
/* Counts a frame sent by an io_uring batch (tandem_batch.h) among the direct sends. */
void tandem_note_batched_send(void);
unsigned long long tandem_frames_handed_to_lws(void);

#endif
