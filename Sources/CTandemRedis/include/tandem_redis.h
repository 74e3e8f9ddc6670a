// What Swift cannot import cleanly from hiredis 0.14 and libuv, for TandemRedis.
//
// A link is one Redis connection slot on a libuv loop: each connect attempt
// resolves the host off the loop (uv_getaddrinfo), connects without blocking
// (redisAsyncConnect on the numeric address), attaches hiredis' libuv adapter,
// sets TCP keepalive and TCP_USER_TIMEOUT, and is bounded by a timeout until the
// owner calls tandem_redis_link_settled. Everything runs on the loop's thread.
#ifndef TANDEM_REDIS_H
#define TANDEM_REDIS_H

#include <stddef.h>
#include <stdint.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>

typedef struct tandem_redis_link tandem_redis_link;

/// Link events, delivered to the owner on the loop's thread.
enum {
    /// The TCP connection is established (hiredis' connect callback with REDIS_OK).
    /// The owner may send commands here; it must not drop the link inside it.
    TANDEM_REDIS_UP = 1,
    /// The attempt failed or the connection ended (`reason` says why). Exactly one per
    /// tandem_redis_link_connect that returned 0, after every pending reply callback
    /// has run with a NULL reply. Never delivered after tandem_redis_link_free.
    TANDEM_REDIS_DOWN = 2,
};

typedef void (*tandem_redis_event_fn)(void *owner, int event, const char *reason);

/// A link on `loop` (a uv_loop_t *); `owner` is handed back to `on_event` unchanged.
tandem_redis_link *tandem_redis_link_new(void *loop, void *owner, tandem_redis_event_fn on_event);

/// Starts one connect attempt to host:port, dropped with a DOWN event when it has not
/// settled within `timeout_ms`. Returns 0 when started (a DOWN event will follow, never
/// from inside this call), -1 when an attempt is already under way or cannot start.
int tandem_redis_link_connect(tandem_redis_link *link, const char *host, int port, unsigned timeout_ms);

/// The owner's handshake is done: the connect timeout no longer applies.
void tandem_redis_link_settled(tandem_redis_link *link);

/// Whether a hiredis context exists (connecting or connected) that takes commands.
int tandem_redis_link_has_context(const tandem_redis_link *link);

/// Sends one command (binary-safe argv). `fn` runs exactly once with `privdata`: with the
/// reply, or with a NULL reply when the connection ends first (tandem_redis_null_reason).
/// For (P)SUBSCRIBE, hiredis instead calls `fn` for every message of the channel, and once
/// with NULL when the connection ends. Returns 0 when queued, -1 when there is no context
/// or hiredis refuses (then `fn` is never called).
int tandem_redis_link_command(tandem_redis_link *link, redisCallbackFn *fn, void *privdata,
                              int argc, const char **argv, const size_t *argvlen);

/// Ends the current attempt or connection with `reason`: pending callbacks run with a
/// NULL reply, then DOWN. Both happen inside this call, or, when called from inside a
/// hiredis reply callback, as soon as that callback returns. No-op without an attempt.
void tandem_redis_link_drop(tandem_redis_link *link, const char *reason);

/// Drops the connection (as tandem_redis_link_drop, but without the DOWN event) and frees
/// the link once hiredis and libuv let go of it. The owner is never called again.
void tandem_redis_link_free(tandem_redis_link *link, const char *reason);

/// Why a reply callback got a NULL reply: the reason given to drop/free, else hiredis' error.
const char *tandem_redis_null_reason(const redisAsyncContext *ac);

/// The owner of the link a context belongs to (NULL once the link is being freed).
void *tandem_redis_context_owner(const redisAsyncContext *ac);

/// A one-shot or repeating uv timer calling `fn(ctx)` on the loop's thread.
typedef struct tandem_redis_timer tandem_redis_timer;
typedef void (*tandem_redis_timer_fn)(void *ctx);
tandem_redis_timer *tandem_redis_timer_new(void *loop, tandem_redis_timer_fn fn, void *ctx);
/// (Re)arms the timer: first after `timeout_ms`, then every `repeat_ms` (0: once).
void tandem_redis_timer_start(tandem_redis_timer *timer, uint64_t timeout_ms, uint64_t repeat_ms);
void tandem_redis_timer_stop(tandem_redis_timer *timer);
/// Stops the timer for good; `fn` is never called again; freed once libuv lets go.
void tandem_redis_timer_free(tandem_redis_timer *timer);

/// A libuv loop of its own (tests; the server passes its own loop).
void *tandem_redis_loop_new(void);
/// Runs the loop once, waiting for an event when one is pending; non-zero while handles remain.
int tandem_redis_loop_run_once(void *loop);
/// Closes every handle left, lets them finish, then frees the loop.
void tandem_redis_loop_free(void *loop);

#endif
