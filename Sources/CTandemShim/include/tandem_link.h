#ifndef TANDEM_LINK_H
#define TANDEM_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <libwebsockets.h>

/* The server's own sockets: WebSocket connections taken off lws once their
 * handshake is answered (plain TCP only; docs/architecture.md, "The
 * server's own sockets"). lws accepts, reads the request and writes the
 * 101; then the connection's socket is watched by one epoll set of the
 * server's (itself watched by the event loop as one descriptor), its frames
 * are read by the server's FrameReader and written by the server's own
 * sends. lws' per-connection state (its wsi, receive buffer, WebSocket
 * state, the event library's handle) is freed at once.
 *
 * What the kernel does not take of a frame is held here, per socket, and
 * sent before anything else on that socket once it is writable again. An
 * idle connection holds nothing here but its slot (24 bytes).
 * On the event loop's thread only. */

enum {
    TANDEM_LINK_IN = 1,   /* bytes (or the end of the stream) to read */
    TANDEM_LINK_OUT = 2,  /* writable */
    TANDEM_LINK_HUP = 4,  /* the peer hung up or the socket failed */
};

typedef struct tandem_link_event {
    int fd;
    unsigned int events;
} tandem_link_event;

/* Makes the epoll set. `uv_loop` is the server's libuv loop (NULL with the
 * poll event loop), used to check that lws' watcher let a socket go before
 * it is taken. Returns the epoll descriptor, or -errno. */
int tandem_link_open(void *uv_loop);

/* From inside LWS_CALLBACK_ESTABLISHED: takes the connection's socket off
 * lws. Returns the server's own descriptor for it (already in the epoll
 * set, reading), or -1 when it stays with lws (lws still holds unsent
 * bytes of the handshake's answer, or a descriptor could not be made).
 * After a success the callback must return -1: lws then frees its
 * connection without a close frame, and what it closes is a stand-in
 * socket that was put in place of the taken one. */
int tandem_link_take(struct lws *wsi);

/* Up to `max` socket events, without waiting. */
int tandem_link_wait(tandem_link_event *events, int max);

/* Reads what the socket holds into `buffer`. Returns the bytes read, 0 at
 * the end of the stream, -1 when nothing is there (EAGAIN), -2 on an error. */
ssize_t tandem_link_read(int fd, unsigned char *buffer, size_t capacity);

/* Whether bytes of an earlier frame wait to be sent on `fd`. */
int tandem_link_holds(int fd);
/* How many bytes wait. */
size_t tandem_link_held(int fd);

/* Asks for (or stops asking for) a TANDEM_LINK_OUT event when the socket can
 * take more (the kernel's TCP_NOTSENT_LOWAT decides). */
void tandem_link_want_writable(int fd, int on);

/* Sends what is held for `fd`. Returns 1 when nothing is held any more, 0
 * when some is still held, -1 when the socket is broken. */
int tandem_link_flush(int fd);

/* Sends one whole frame with `opcode` (1 text, 2 binary, 8 close, 9 ping,
 * 10 pong) and `payload`, behind what is held. Returns 1 when it went out
 * whole, 0 when some or all of it is held, -1 when the socket is broken. */
int tandem_link_send_frame(int fd, int opcode, const unsigned char *payload, size_t length);

/* Holds bytes `skip`.. of the `count` pieces of `iov` (`total` in all) behind
 * what is held, and asks for TANDEM_LINK_OUT. Returns 0, or -1 out of memory. */
struct iovec;
int tandem_link_hold(int fd, const struct iovec *iov, int count, size_t skip, size_t total);

/* Ends the server's side of the stream (a FIN after everything sent), while
 * the client's side may still be read: after a close frame, when the client
 * is still sending. */
void tandem_link_shutdown(int fd);

/* Forgets what is held and closes the socket (which leaves the epoll set). */
void tandem_link_close(int fd);

/* The sockets taken off lws since the process started, for metrics. */
unsigned long long tandem_links_taken(void);

#endif
