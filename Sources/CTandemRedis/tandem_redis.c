// hiredis 0.14 on a libuv loop for TandemRedis: see include/tandem_redis.h.
#include "tandem_redis.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uv.h>
#include <hiredis/adapters/libuv.h>

// A dead peer is noticed by the kernel, since hiredis 0.14 has no command timeout:
// idle connections probe after 5 s, every 2 s, 3 times (about 11 s); unacknowledged
// writes give up after 10 s (TCP_USER_TIMEOUT). Either error reaches hiredis on the
// next read or write and ends the connection.
enum { KEEPALIVE_IDLE_S = 5, KEEPALIVE_INTERVAL_S = 2, KEEPALIVE_COUNT = 3, USER_TIMEOUT_MS = 10000 };

struct resolve_request {
    uv_getaddrinfo_t req;
    tandem_redis_link *link;  // NULL once the attempt was dropped
    int port;
};

struct tandem_redis_link {
    uv_loop_t *loop;
    void *owner;  // NULL once freeing
    tandem_redis_event_fn on_event;
    redisAsyncContext *ac;             // the attempt's context, NULL when none
    struct resolve_request *resolving; // the attempt's lookup, NULL when none
    uv_timer_t timer;                  // the connect timeout
    unsigned timeout_ms;
    int attempt;   // an attempt is under way: its DOWN event is still due
    int contexts;  // contexts attached and not yet cleaned up
    int freeing;
    int timer_closed;
    char reason[256];  // why the owner or the timeout dropped the attempt ("" otherwise)
};

static void link_release_if_done(tandem_redis_link *link) {
    if (link->freeing && link->timer_closed && link->contexts == 0) free(link);
}

// The attempt is over: stop the timeout, tell the owner once.
static void link_end_attempt(tandem_redis_link *link, const char *reason) {
    if (!link->attempt) return;
    link->attempt = 0;
    uv_timer_stop(&link->timer);
    char copy[sizeof(link->reason)];
    snprintf(copy, sizeof(copy), "%s", reason && reason[0] ? reason : "disconnected");
    if (link->owner && !link->freeing) link->on_event(link->owner, TANDEM_REDIS_DOWN, copy);
}

// --- The libuv adapter, with error events passed on ---------------------------------
//
// hiredis 0.14's redisLibuvPoll ignores a poll with a non-zero status, and libuv reports
// POLLERR (a refused connect, a reset) exactly so, after stopping the handle: the
// connection would hang until the timeout. The wrappers below keep redisLibuvAttach's
// bookkeeping and only swap the poll callback for one that lets hiredis see the error.

static void link_poll(uv_poll_t *handle, int status, int events) {
    redisLibuvEvents *p = (redisLibuvEvents *)handle->data;
    int ev = status < 0 ? (p->events ? p->events : UV_WRITABLE) : events;
    if (p->context != NULL && (ev & UV_READABLE)) redisAsyncHandleRead(p->context);
    if (p->context != NULL && (ev & UV_WRITABLE)) redisAsyncHandleWrite(p->context);
}

static void link_repoll(void *privdata) {
    redisLibuvEvents *p = (redisLibuvEvents *)privdata;
    if (p->events) uv_poll_start(&p->handle, p->events, link_poll);
}

static void link_add_read(void *privdata) { redisLibuvAddRead(privdata); link_repoll(privdata); }
static void link_del_read(void *privdata) { redisLibuvDelRead(privdata); link_repoll(privdata); }
static void link_add_write(void *privdata) { redisLibuvAddWrite(privdata); link_repoll(privdata); }
static void link_del_write(void *privdata) { redisLibuvDelWrite(privdata); link_repoll(privdata); }

// hiredis frees a context: every pending callback has run with a NULL reply.
static void link_cleanup(void *privdata) {
    redisLibuvEvents *p = (redisLibuvEvents *)privdata;
    redisAsyncContext *ac = p->context;
    redisLibuvCleanup(privdata);
    if (!ac) return;
    tandem_redis_link *link = (tandem_redis_link *)ac->data;
    if (!link) return;
    link->contexts -= 1;
    if (link->ac == ac) {
        link->ac = NULL;
        const char *reason = link->reason[0] ? link->reason : (ac->err && ac->errstr ? ac->errstr : "disconnected");
        link_end_attempt(link, reason);
    }
    link_release_if_done(link);
}

static void link_connected(const redisAsyncContext *ac, int status) {
    tandem_redis_link *link = (tandem_redis_link *)ac->data;
    // A failed connect ends in link_cleanup, which hiredis calls right after this.
    if (status != REDIS_OK || !link || link->ac != ac) return;
    if (link->owner && !link->freeing) link->on_event(link->owner, TANDEM_REDIS_UP, "");
}

static void set_socket_options(int fd) {
    int on = 1, idle = KEEPALIVE_IDLE_S, interval = KEEPALIVE_INTERVAL_S, count = KEEPALIVE_COUNT;
    unsigned int user_timeout = USER_TIMEOUT_MS;
    (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
    (void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof(user_timeout));
}

static void link_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res) {
    struct resolve_request *request = (struct resolve_request *)req;
    tandem_redis_link *link = request->link;
    int port = request->port;
    free(request);
    if (!link) { if (res) uv_freeaddrinfo(res); return; }
    link->resolving = NULL;

    char reason[sizeof(link->reason)];
    char ip[INET6_ADDRSTRLEN] = "";
    if (status != 0 || !res) {
        snprintf(reason, sizeof(reason), "cannot resolve the host: %s", uv_strerror(status));
        if (res) uv_freeaddrinfo(res);
        link_end_attempt(link, reason);
        return;
    }
    // The first IPv4 address, else the first address.
    const struct addrinfo *chosen = res;
    for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET) { chosen = ai; break; }
    }
    if (chosen->ai_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)chosen->ai_addr)->sin_addr, ip, sizeof(ip));
    } else if (chosen->ai_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)chosen->ai_addr)->sin6_addr, ip, sizeof(ip));
    }
    uv_freeaddrinfo(res);
    if (!ip[0]) { link_end_attempt(link, "cannot resolve the host: no IP address"); return; }

    // A numeric address: hiredis' own getaddrinfo does no lookup, connect(2) does not block.
    redisAsyncContext *ac = redisAsyncConnect(ip, port);
    if (!ac) { link_end_attempt(link, "cannot connect: out of memory"); return; }
    if (ac->err) {
        snprintf(reason, sizeof(reason), "%s", ac->errstr ? ac->errstr : "cannot connect");
        redisAsyncFree(ac);
        link_end_attempt(link, reason);
        return;
    }
    if (redisLibuvAttach(ac, link->loop) != REDIS_OK) {
        redisAsyncFree(ac);
        link_end_attempt(link, "cannot connect: the libuv adapter failed");
        return;
    }
    ac->data = link;
    ac->ev.addRead = link_add_read;
    ac->ev.delRead = link_del_read;
    ac->ev.addWrite = link_add_write;
    ac->ev.delWrite = link_del_write;
    ac->ev.cleanup = link_cleanup;
    link->ac = ac;
    link->contexts += 1;
    set_socket_options(ac->c.fd);
    // After attaching: this asks for the first write event, the connect's outcome.
    redisAsyncSetConnectCallback(ac, link_connected);
}

static void link_timed_out(uv_timer_t *timer) {
    tandem_redis_link *link = (tandem_redis_link *)timer->data;
    char reason[64];
    snprintf(reason, sizeof(reason), "connect timed out after %u ms", link->timeout_ms);
    tandem_redis_link_drop(link, reason);
}

static void link_timer_closed(uv_handle_t *handle) {
    tandem_redis_link *link = (tandem_redis_link *)handle->data;
    link->timer_closed = 1;
    link_release_if_done(link);
}

tandem_redis_link *tandem_redis_link_new(void *loop, void *owner, tandem_redis_event_fn on_event) {
    tandem_redis_link *link = calloc(1, sizeof(*link));
    if (!link) return NULL;
    link->loop = (uv_loop_t *)loop;
    link->owner = owner;
    link->on_event = on_event;
    if (uv_timer_init(link->loop, &link->timer) != 0) { free(link); return NULL; }
    link->timer.data = link;
    return link;
}

int tandem_redis_link_connect(tandem_redis_link *link, const char *host, int port, unsigned timeout_ms) {
    if (link->freeing || link->attempt) return -1;
    struct resolve_request *request = calloc(1, sizeof(*request));
    if (!request) return -1;
    request->link = link;
    request->port = port;
    struct addrinfo hints;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    // On libuv's thread pool: a slow DNS answer never blocks the loop.
    if (uv_getaddrinfo(link->loop, &request->req, link_resolved, host, NULL, &hints) != 0) {
        free(request);
        return -1;
    }
    link->resolving = request;
    link->attempt = 1;
    link->reason[0] = 0;
    link->timeout_ms = timeout_ms;
    uv_timer_start(&link->timer, link_timed_out, timeout_ms, 0);
    return 0;
}

void tandem_redis_link_settled(tandem_redis_link *link) { uv_timer_stop(&link->timer); }

int tandem_redis_link_has_context(const tandem_redis_link *link) { return link->ac != NULL; }

int tandem_redis_link_command(tandem_redis_link *link, redisCallbackFn *fn, void *privdata,
                              int argc, const char **argv, const size_t *argvlen) {
    if (!link->ac || link->freeing) return -1;
    return redisAsyncCommandArgv(link->ac, fn, privdata, argc, argv, argvlen) == REDIS_OK ? 0 : -1;
}

void tandem_redis_link_drop(tandem_redis_link *link, const char *reason) {
    if (!link->attempt) return;
    snprintf(link->reason, sizeof(link->reason), "%s", reason && reason[0] ? reason : "dropped");
    if (link->resolving) {
        link->resolving->link = NULL;  // its callback frees it
        uv_cancel((uv_req_t *)&link->resolving->req);
        link->resolving = NULL;
        link_end_attempt(link, link->reason);
    } else if (link->ac) {
        // Pending callbacks get NULL replies, then link_cleanup ends the attempt;
        // from inside a reply callback hiredis does both once that callback returns.
        redisAsyncFree(link->ac);
    } else {
        link_end_attempt(link, link->reason);
    }
}

void tandem_redis_link_free(tandem_redis_link *link, const char *reason) {
    if (!link || link->freeing) return;
    link->freeing = 1;
    link->owner = NULL;
    tandem_redis_link_drop(link, reason);
    uv_close((uv_handle_t *)&link->timer, link_timer_closed);
}

const char *tandem_redis_null_reason(const redisAsyncContext *ac) {
    const tandem_redis_link *link = ac ? (const tandem_redis_link *)ac->data : NULL;
    if (link && link->reason[0]) return link->reason;
    if (ac && ac->err && ac->errstr) return ac->errstr;
    return "disconnected";
}

void *tandem_redis_context_owner(const redisAsyncContext *ac) {
    const tandem_redis_link *link = ac ? (const tandem_redis_link *)ac->data : NULL;
    return link && !link->freeing ? link->owner : NULL;
}

// --- Timers ----------------------------------------------------------------------------

struct tandem_redis_timer {
    uv_timer_t handle;
    tandem_redis_timer_fn fn;
    void *ctx;
};

static void timer_fired(uv_timer_t *handle) {
    tandem_redis_timer *timer = (tandem_redis_timer *)handle->data;
    if (timer->fn) timer->fn(timer->ctx);
}

static void timer_closed(uv_handle_t *handle) { free(handle->data); }

tandem_redis_timer *tandem_redis_timer_new(void *loop, tandem_redis_timer_fn fn, void *ctx) {
    tandem_redis_timer *timer = calloc(1, sizeof(*timer));
    if (!timer) return NULL;
    if (uv_timer_init((uv_loop_t *)loop, &timer->handle) != 0) { free(timer); return NULL; }
    timer->handle.data = timer;
    timer->fn = fn;
    timer->ctx = ctx;
    return timer;
}

void tandem_redis_timer_start(tandem_redis_timer *timer, uint64_t timeout_ms, uint64_t repeat_ms) {
    uv_timer_start(&timer->handle, timer_fired, timeout_ms, repeat_ms);
}

void tandem_redis_timer_stop(tandem_redis_timer *timer) { uv_timer_stop(&timer->handle); }

void tandem_redis_timer_free(tandem_redis_timer *timer) {
    if (!timer) return;
    timer->fn = NULL;
    uv_close((uv_handle_t *)&timer->handle, timer_closed);
}

// --- A loop of its own -------------------------------------------------------------------

void *tandem_redis_loop_new(void) {
    uv_loop_t *loop = malloc(sizeof(uv_loop_t));
    if (!loop || uv_loop_init(loop)) { free(loop); return NULL; }
    return loop;
}

int tandem_redis_loop_run_once(void *loop) { return uv_run((uv_loop_t *)loop, UV_RUN_ONCE); }

static void close_handle(uv_handle_t *handle, void *arg) {
    (void)arg;
    if (!uv_is_closing(handle)) uv_close(handle, NULL);
}

void tandem_redis_loop_free(void *loop) {
    uv_run((uv_loop_t *)loop, UV_RUN_NOWAIT);
    uv_walk((uv_loop_t *)loop, close_handle, NULL);
    uv_run((uv_loop_t *)loop, UV_RUN_DEFAULT);
    uv_loop_close((uv_loop_t *)loop);
    free(loop);
}
