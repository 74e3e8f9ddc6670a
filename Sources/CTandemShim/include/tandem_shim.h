// Small C helpers for what Swift cannot import from libwebsockets: function-like
// macros (LWS_PRE), container_of timers, and async-signal-safe shutdown. Each
// helper is prefixed `tandem_` and says why it exists.
#ifndef TANDEM_SHIM_H
#define TANDEM_SHIM_H

#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>
#include "tandem_send.h"
#include "tandem_batch.h"
#include "tandem_headers.h"

/// LWS_PRE is a macro: the headroom lws needs in front of every buffer passed to lws_write.
size_t tandem_lws_pre(void);

/// Writes `len` bytes at `buf + LWS_PRE` as one WebSocket text frame.
/// `buf` must have LWS_PRE writable bytes in front of the payload.
int tandem_write_text(struct lws *wsi, unsigned char *buf, size_t len);

/// Sends a close frame with `code` and `reason` (at most 123 bytes) right away.
/// Returning -1 after lws_close_reason() from a writable callback lets lws send
/// the frame on its own, but with the libuv loop the socket is closed before the
/// frame goes out; writing it here first makes both loops send it.
int tandem_write_close(struct lws *wsi, unsigned short code, const char *reason, size_t len);

/// Writes `len` bytes at `buf + LWS_PRE` of an HTTP body; `final` ends the transaction's body.
int tandem_write_http(struct lws *wsi, unsigned char *buf, size_t len, int final);

/// The reason phrase of an HTTP status (RFC 9110 section 15), e.g. "Misdirected Request" for 421.
const char *tandem_reason_phrase(unsigned int status);

/// Rewrites the status line lws wrote at `start` (up to `*p`) as
/// `HTTP/1.1 CODE Reason`: lws 4.1 writes HTTP/1.0 before it has read a
/// request's version (a refused upgrade) and no reason for 421, 426, 429, 431.
/// 0 on success; 1 when it does not fit before `end`.
int tandem_fix_status_line(unsigned char *start, unsigned char **p, unsigned char *end, unsigned int status);

/// Writes HTTP response headers: status, content type, content length and any extra
/// headers (a "Name: value\r\n"-free list of name/value pairs, `count` of them).
/// Returns 0 on success.
int tandem_write_http_headers(struct lws *wsi, unsigned int status, const char *content_type,
                              uint64_t content_length, const char *const *names,
                              const char *const *values, int count);

/// The HTTP method of the request on `wsi`: 0 unknown, 1 GET, 2 POST, 3 PUT, 4 DELETE, 5 HEAD, 6 OPTIONS.
int tandem_http_method(struct lws *wsi);

/// Copies the request's URI path (without the query) into `buf`; returns its length or -1.
int tandem_request_path(struct lws *wsi, char *buf, int len);

/// Copies the url-decoded value of query argument `name` (e.g. "name") into `buf`;
/// returns its length, or -1 when absent.
int tandem_query_arg(struct lws *wsi, const char *name, char *buf, int len);

/// One repeating timer on the lws event loop. lws calls back with a pointer to the
/// list node; the shim recovers this struct with lws_container_of (a macro).
typedef struct tandem_timer {
    lws_sorted_usec_list_t sul;
    struct lws_context *context;
    void (*fire)(struct lws_context *context);
} tandem_timer;

/// Schedules `timer` to call its `fire` once, `microseconds` from now.
void tandem_timer_schedule(tandem_timer *timer, int64_t microseconds);

/// Cancels a scheduled timer.
void tandem_timer_cancel(tandem_timer *timer);

/// Installs SIGINT/SIGTERM handlers that record the signal and wake the event loop
/// with lws_cancel_service (the only lws call allowed from another context).
void tandem_signals_install(struct lws_context *context);

/// The signal received since start (SIGINT or SIGTERM), or 0.
int tandem_signal_received(void);

/// The retry/idle policy that makes lws ping a silent client and hang up when it stays silent.
/// The struct must outlive the context: the shim keeps one static instance.
const lws_retry_bo_t *tandem_idle_policy(uint16_t ping_after_seconds, uint16_t hangup_after_seconds);

/// A libuv loop owned by the server and handed to lws as its foreign loop: with
/// Debian's evlib plugins, lws_service() on lws' own uv loop never returns, and
/// lws_uv_getloop() is not exported, so the server runs the loop itself.
void *tandem_uv_loop_create(void);

/// Runs the loop until at least one event was handled (the 250 ms timer
/// guarantees one); returns non-zero while handles remain.
int tandem_uv_run_once(void *loop);

/// After lws_context_destroy: lets lws' handles finish closing, then closes the loop.
void tandem_uv_loop_finish(void *loop);

/// Writes `len` bytes at `buf + LWS_PRE` as one WebSocket frame, binary or text
/// (the echo endpoint sends back what it got, text or binary alike).
int tandem_write_frame(struct lws *wsi, unsigned char *buf, size_t len, int binary);

/// Answers an HTTP request at once and in one write: status line, a JSON content
/// type, `Content-Length`, `Connection: close`, one optional extra header
/// (`header_name` like "Sec-WebSocket-Version:", NULL for none) and the body.
/// lws_return_http_status cannot add a header (426 needs Sec-WebSocket-Version),
/// wraps the body in HTML and says HTTP/1.0 on a refused upgrade. The status
/// line is always `HTTP/1.1 CODE Reason`. Returns 0 when everything was written.
int tandem_answer_http(struct lws *wsi, unsigned int status, const char *body, size_t body_len,
                       const char *header_name, const char *header_value);

/// Copies the value of request header `token` (an `enum lws_token_indexes`)
/// into `buf`; returns its length, 0 when absent, -1 when it does not fit.
int tandem_header(struct lws *wsi, int token, char *buf, int len);

/// The peer address of an accepted socket as lws hands it to
/// LWS_CALLBACK_FILTER_NETWORK_CONNECTION (`user` points at a
/// struct lws_filter_network_conn_args), in numeric form; 0 on success.
int tandem_filter_peer(void *filter_args, char *buf, int len);

// MARK: unmasked client frames
//
// lws 4.1 reads the mask bit of every frame (`this_frame_masked`) but never
// checks it on the server side, and keeps it in a private struct. RFC 6455
// (5.1) says a server MUST close on an unmasked client frame. The one place
// the raw bytes pass through that we can reach is the socket read: lws reads
// every plain (non-TLS) socket with recv(2), so the shim defines `recv`; the
// dynamic linker binds lws' call to it (an executable's symbols come first).
// It calls the kernel as recv would, and for sockets the server registered
// after the WebSocket handshake it walks the frame headers in the bytes read
// (length, mask bit, mask key, payload skipped) and remembers an unmasked
// frame; the server checks that flag on every callback of the connection and
// closes with 1002. Sockets not registered (HTTP, the bench's client
// sockets, SQLite's files) are untouched. Under TLS lws reads through OpenSSL,
// which uses read(2): nothing is checked there (the bytes would be ciphertext).

/// Prepares the per-socket table for descriptors below `max_fd`; call once before the first watch.
void tandem_mask_init(int max_fd);

/// Starts walking the frames read from `fd`, from the next byte read (call at ESTABLISHED).
void tandem_mask_watch(int fd);

/// Stops watching `fd` (call when its connection closes).
void tandem_mask_unwatch(int fd);

/// Whether a frame read from `fd` since `tandem_mask_watch` came without a mask.
int tandem_mask_violated(int fd);
/* Bytes waiting in the socket's receive queue (FIONREAD), 0 on error. */
int tandem_unread_bytes(int fd);

/* glibc's malloc_trim(0): whole free pages inside the heap go back to the
 * kernel. Returns 1 when memory was released. */
int tandem_malloc_trim(void);

/// Whether a frame header read from `fd` is one lws fails the connection for
/// by itself (RSV bits, a reserved opcode, a fragmented or long control frame).
/// lws then sends its close but, its frame parser left mid-header, cannot
/// read the client's close reply and waits 5 s for it: the server drops such
/// a connection itself, a moment after lws' close frame went out.
int tandem_frame_header_error(int fd);

#endif
