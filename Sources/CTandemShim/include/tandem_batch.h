#ifndef TANDEM_BATCH_H
#define TANDEM_BATCH_H

#include <stddef.h>
#include <libwebsockets.h>

/* A batch of frame sends through io_uring: a fan-out round queues its frames
 * and sends them with one io_uring_enter per chunk of up to 256, instead of
 * one send() system call each (docs/architecture.md, "Fan-out rounds").
 * Plain TCP only, on the event loop's thread only. */

/* Sets up the ring. Returns 0, or a negative errno when io_uring is not
 * available (an old kernel, io_uring_disabled, a seccomp filter): then
 * frames go out with tandem_send_text. */
int tandem_batch_open(void);

/* Queues one text frame whose payload is a, b and c (as tandem_send_text).
 * When lws holds unsent bytes of the connection the frame goes behind them
 * at once instead. A full chunk is sent before queueing more. */
void tandem_batch_text(struct lws *wsi, int fd, const unsigned char *a, size_t na,
                       const unsigned char *b, size_t nb,
                       const unsigned char *c, size_t nc);

/* Sends everything queued and waits for the kernel's answers (the sends
 * complete at once: the sockets are non-blocking). Frames a socket did not
 * take whole are handed to lws, which sends the rest before anything else.
 * Returns how many frames since the last tandem_batch_done were not taken
 * whole; tandem_batch_not_whole(i) gives each one's connection. */
int tandem_batch_flush(void);
struct lws *tandem_batch_not_whole(int i);
/* Its socket (the way to a connection taken off lws, whose wsi is NULL). */
int tandem_batch_not_whole_fd(int i);
/* The io_uring submits made, for metrics. */
unsigned long long tandem_batch_submits(void);

/* Forgets the frames not taken whole, once the caller has read them. */
void tandem_batch_done(void);

#endif
