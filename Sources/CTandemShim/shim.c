#include "tandem_shim.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <uv.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

size_t tandem_lws_pre(void) { return LWS_PRE; }

int tandem_write_text(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT);
}

int tandem_write_close(struct lws *wsi, unsigned short code, const char *reason, size_t len) {
    unsigned char buf[LWS_PRE + 125];
    if (len > 123) len = 123;
    buf[LWS_PRE] = (unsigned char)(code >> 8);
    buf[LWS_PRE + 1] = (unsigned char)(code & 0xff);
    memcpy(&buf[LWS_PRE + 2], reason, len);
    /* 4 is LWS_WRITE_CLOSE, which lws keeps out of its public enum. */
    return lws_write(wsi, &buf[LWS_PRE], len + 2, (enum lws_write_protocol)4);
}

int tandem_write_http(struct lws *wsi, unsigned char *buf, size_t len, int final) {
    return lws_write(wsi, buf + LWS_PRE, len, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP);
}

const char *tandem_reason_phrase(unsigned int status) {
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return status < 200 ? "Informational" : status < 300 ? "Success" : status < 400 ? "Redirection"
                  : status < 500 ? "Client Error" : "Server Error";
    }
}

/* lws 4.1 writes the status line itself, with the request's version (HTTP/1.0
 * on a refused WebSocket upgrade, where lws has not read it yet) and a reason
 * phrase only for 400-417 and 500-505 (none for 421, 426, 429, 431): the
 * first line of the header block at `start` is rewritten as
 * `HTTP/1.1 CODE Reason`. */
int tandem_fix_status_line(unsigned char *start, unsigned char **p, unsigned char *end, unsigned int status) {
    /* An HTTP/1 status line only (never an h2 header block, which has none). */
    if (*p - start < 5 || memcmp(start, "HTTP/", 5)) return 0;
    unsigned char *eol = start;
    while (eol + 1 < *p && !(eol[0] == '\r' && eol[1] == '\n')) eol++;
    if (eol + 1 >= *p) return 1;
    char line[96];
    int n = snprintf(line, sizeof(line), "HTTP/1.1 %u %s", status, tandem_reason_phrase(status));
    if (n <= 0 || n >= (int)sizeof(line)) return 1;
    size_t rest = (size_t)(*p - eol);
    if (start + n + rest > end) return 1;
    memmove(start + n, eol, rest);
    memcpy(start, line, (size_t)n);
    *p = start + n + rest;
    return 0;
}

int tandem_write_http_headers(struct lws *wsi, unsigned int status, const char *content_type,
                              uint64_t content_length, const char *const *names,
                              const char *const *values, int count) {
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = &buf[LWS_PRE], *p = start, *end = &buf[sizeof(buf) - 1];
    if (lws_add_http_common_headers(wsi, status, content_type, (lws_filepos_t)content_length, &p, end))
        return 1;
    if (tandem_fix_status_line(start, &p, end, status)) return 1;
    for (int i = 0; i < count; i++) {
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)names[i],
                                        (const unsigned char *)values[i], (int)strlen(values[i]), &p, end))
            return 1;
    }
    return lws_finalize_write_http_header(wsi, start, &p, end) ? 1 : 0;
}

int tandem_http_method(struct lws *wsi) {
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI)) return 1;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI)) return 2;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_PUT_URI)) return 3;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_DELETE_URI)) return 4;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI)) return 5;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_OPTIONS_URI)) return 6;
    return 0;
}

int tandem_request_path(struct lws *wsi, char *buf, int len) {
    static const enum lws_token_indexes tokens[] = {
        WSI_TOKEN_GET_URI, WSI_TOKEN_POST_URI, WSI_TOKEN_PUT_URI,
        WSI_TOKEN_DELETE_URI, WSI_TOKEN_HEAD_URI, WSI_TOKEN_OPTIONS_URI,
    };
    for (size_t i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++) {
        if (lws_hdr_total_length(wsi, tokens[i]))
            return lws_hdr_copy(wsi, buf, len, tokens[i]);
    }
    return -1;
}

int tandem_query_arg(struct lws *wsi, const char *name, char *buf, int len) {
    size_t n = strlen(name);
    if (len <= 0 || n + 1 > 62) return -1;
    /* Each argument is a fragment of WSI_TOKEN_HTTP_URI_ARGS, url-decoded by
     * lws as "name=value". lws_get_urlarg_by_name stops at the first fragment
     * longer than the buffer, hiding every argument after it, and reports a
     * value too long for the buffer as absent: a 5 KB ?token= looked like no
     * token at all. Here a value that does not fit comes back cut to len - 1
     * bytes, so the caller sees it is at least that long. */
    for (int i = 0; i < 4096; i++) {
        int flen = lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i);
        if (flen <= 0) {
            char empty[1];
            /* 0 for an empty argument and for none: only an existing one copies */
            if (lws_hdr_copy_fragment(wsi, empty, 1, WSI_TOKEN_HTTP_URI_ARGS, i) < 0) return -1;
            continue;
        }
        char local[512];
        char *copy = flen < (int)sizeof(local) ? local : malloc((size_t)flen + 1);
        if (!copy) return -1;
        if (lws_hdr_copy_fragment(wsi, copy, flen + 1, WSI_TOKEN_HTTP_URI_ARGS, i) < 0) {
            if (copy != local) free(copy);
            return -1;
        }
        if ((size_t)flen > n && !strncmp(copy, name, n) && copy[n] == '=') {
            size_t vlen = (size_t)flen - n - 1;
            if (vlen > (size_t)len - 1) vlen = (size_t)len - 1;
            memcpy(buf, copy + n + 1, vlen);
            buf[vlen] = '\0';
            if (copy != local) free(copy);
            return (int)vlen;
        }
        if (copy != local) free(copy);
    }
    return -1;
}

static void tandem_timer_fired(lws_sorted_usec_list_t *sul) {
    tandem_timer *timer = lws_container_of(sul, tandem_timer, sul);
    timer->fire(timer->context);
}

void tandem_timer_schedule(tandem_timer *timer, int64_t microseconds) {
    lws_sul_schedule(timer->context, 0, &timer->sul, tandem_timer_fired, microseconds);
}

void tandem_timer_cancel(tandem_timer *timer) {
    lws_sul_cancel(&timer->sul);
}

static struct lws_context *signal_context;
static volatile sig_atomic_t signal_received;

static void tandem_on_signal(int sig) {
    signal_received = sig;
    if (signal_context) lws_cancel_service(signal_context);
}

void tandem_signals_install(struct lws_context *context) {
    signal_context = context;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = tandem_on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int tandem_signal_received(void) { return (int)signal_received; }

static lws_retry_bo_t idle_policy;

const lws_retry_bo_t *tandem_idle_policy(uint16_t ping_after_seconds, uint16_t hangup_after_seconds) {
    memset(&idle_policy, 0, sizeof(idle_policy));
    idle_policy.secs_since_valid_ping = ping_after_seconds;
    idle_policy.secs_since_valid_hangup = hangup_after_seconds;
    return &idle_policy;
}

void *tandem_uv_loop_create(void) {
    uv_loop_t *loop = malloc(sizeof(uv_loop_t));
    if (!loop || uv_loop_init(loop)) { free(loop); return NULL; }
    return loop;
}

int tandem_uv_run_once(void *loop) { return uv_run((uv_loop_t *)loop, UV_RUN_ONCE); }

void tandem_uv_loop_finish(void *loop) {
    uv_run((uv_loop_t *)loop, UV_RUN_DEFAULT);
    uv_loop_close((uv_loop_t *)loop);
    free(loop);
}

int tandem_write_frame(struct lws *wsi, unsigned char *buf, size_t len, int binary) {
    return lws_write(wsi, buf + LWS_PRE, len, binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
}

int tandem_answer_http(struct lws *wsi, unsigned int status, const char *body, size_t body_len,
                       const char *header_name, const char *header_value) {
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = &buf[LWS_PRE], *p = start, *end = &buf[sizeof(buf) - 1];
    if (body_len > 1024) body_len = 1024;
    if (lws_add_http_header_status(wsi, status, &p, end)) return 1;
    if (tandem_fix_status_line(start, &p, end, status)) return 1;
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
                                     (const unsigned char *)"application/json", 16, &p, end)) return 1;
    if (lws_add_http_header_content_length(wsi, body_len, &p, end)) return 1;
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5, &p, end)) return 1;
    if (header_name && header_value &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)header_name,
                                    (const unsigned char *)header_value, (int)strlen(header_value), &p, end)) return 1;
    if (lws_finalize_http_header(wsi, &p, end)) return 1;
    if ((size_t)(end - p) < body_len) return 1;
    memcpy(p, body, body_len);
    p += body_len;
    int n = (int)(p - start);
    return lws_write(wsi, start, (size_t)n, LWS_WRITE_HTTP_FINAL) == n ? 0 : 1;
}

int tandem_header(struct lws *wsi, int token, char *buf, int len) {
    int n = lws_hdr_total_length(wsi, (enum lws_token_indexes)token);
    if (n <= 0) return 0;
    if (n >= len) return -1;
    return lws_hdr_copy(wsi, buf, len, (enum lws_token_indexes)token);
}

int tandem_filter_peer(void *filter_args, char *buf, int len) {
    struct lws_filter_network_conn_args *args = filter_args;
    const void *addr;
    if (args->cli_addr.ss_family == AF_INET6)
        addr = &((struct sockaddr_in6 *)&args->cli_addr)->sin6_addr;
    else if (args->cli_addr.ss_family == AF_INET)
        addr = &((struct sockaddr_in *)&args->cli_addr)->sin_addr;
    else
        return -1;
    return inet_ntop(args->cli_addr.ss_family, addr, buf, (socklen_t)len) ? 0 : -1;
}

/* The frame walker of one watched socket (see the header). */
typedef struct tandem_mask_walk {
    unsigned char watching, violated, header_error, phase, count, control, opcode;
    uint64_t payload;
} tandem_mask_walk;

enum { WALK_OPCODE, WALK_LENGTH, WALK_EXTENDED, WALK_KEY, WALK_PAYLOAD };

static tandem_mask_walk *mask_walks;
static int mask_walks_count;

void tandem_mask_init(int max_fd) {
    if (mask_walks || max_fd <= 0) return;
    /* Allocated once and never moved: recv may run on other threads (for
     * sockets never watched), and reads the table without a lock. */
    mask_walks = calloc((size_t)max_fd, sizeof(*mask_walks));
    if (mask_walks) mask_walks_count = max_fd;
}

void tandem_mask_watch(int fd) {
    if (fd < 0 || fd >= mask_walks_count) return;
    memset(&mask_walks[fd], 0, sizeof(mask_walks[fd]));
    mask_walks[fd].watching = 1;
}

void tandem_mask_unwatch(int fd) {
    if (fd < 0 || fd >= mask_walks_count) return;
    memset(&mask_walks[fd], 0, sizeof(mask_walks[fd]));
}

int tandem_mask_violated(int fd) {
    if (fd < 0 || fd >= mask_walks_count) return 0;
    return mask_walks[fd].violated;
}

int tandem_malloc_trim(void) { return malloc_trim(0); }

int tandem_unread_bytes(int fd) {
    int n = 0;
    if (fd < 0 || ioctl(fd, FIONREAD, &n) != 0) return 0;
    return n;
}

int tandem_frame_header_error(int fd) {
    if (fd < 0 || fd >= mask_walks_count) return 0;
    return mask_walks[fd].header_error;
}

/* Walks `n` bytes; with `stop_after_ping`, stops at the end of the first
 * whole ping frame. Returns the bytes walked. */
static size_t tandem_mask_walk_bytes(tandem_mask_walk *w, const unsigned char *start, size_t n, int stop_after_ping) {
    const unsigned char *p = start;
    while (n && !w->violated && !w->header_error) {
        if (stop_after_ping && w->phase == WALK_OPCODE && p > start && w->opcode == 0x9) break;
        switch (w->phase) {
        case WALK_OPCODE: {
            unsigned char c = *p++; n--;
            unsigned char opcode = c & 0x0f;
            w->opcode = opcode;
            w->control = (opcode & 8) != 0;
            /* What lws fails in the first header byte: RSV bits (no extension
             * is ever negotiated here), reserved opcodes, fragmented control frames. */
            if ((c & 0x70) || (opcode >= 3 && opcode <= 7) || opcode >= 0xb || (w->control && !(c & 0x80)))
                w->header_error = 1;
            w->phase = WALK_LENGTH;
            break;
        }
        case WALK_LENGTH: {
            unsigned char c = *p++; n--;
            if (!(c & 0x80)) { w->violated = 1; break; }
            if (w->control && (c & 0x7f) > 125) { w->header_error = 1; break; }
            w->payload = c & 0x7f;
            if (w->payload >= 126) {
                w->count = w->payload == 126 ? 2 : 8;
                w->payload = 0;
                w->phase = WALK_EXTENDED;
            } else {
                w->count = 4;
                w->phase = WALK_KEY;
            }
            break;
        }
        case WALK_EXTENDED:
            w->payload = (w->payload << 8) | *p++; n--;
            if (!--w->count) { w->count = 4; w->phase = WALK_KEY; }
            break;
        case WALK_KEY:
            p++; n--;
            if (!--w->count) w->phase = w->payload ? WALK_PAYLOAD : WALK_OPCODE;
            break;
        case WALK_PAYLOAD: {
            size_t skip = w->payload < n ? (size_t)w->payload : n;
            p += skip; n -= skip;
            w->payload -= skip;
            if (!w->payload) w->phase = WALK_OPCODE;
            break;
        }
        }
    }
    return (size_t)(p - start);
}

ssize_t recv(int fd, void *buf, size_t len, int flags) {
    /* What glibc's recv does: recvfrom without an address. */
    tandem_note_recv(fd);
    if ((flags & MSG_PEEK) || fd < 0 || fd >= mask_walks_count || !mask_walks[fd].watching)
        return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
    /* A watched WebSocket: look first, then take the bytes up to the end of
     * the first ping, if there is one. lws answers one ping at a time and
     * drops a ping that comes while its pong is still unsent (RFC 6455 5.5.2
     * wants each answered); with one ping per read, the rest waits in the
     * socket, and lws writes the pong (it serves POLLOUT before POLLIN)
     * before it reads the next. */
    ssize_t n = syscall(SYS_recvfrom, fd, buf, len, flags | MSG_PEEK, NULL, NULL);
    if (n <= 0) return n;
    tandem_mask_walk trial = mask_walks[fd];
    size_t take = tandem_mask_walk_bytes(&trial, buf, (size_t)n, 1);
    if (trial.violated || trial.header_error || take == 0) take = (size_t)n;
    n = syscall(SYS_recvfrom, fd, buf, take, flags, NULL, NULL);
    if (n > 0) tandem_mask_walk_bytes(&mask_walks[fd], buf, (size_t)n, 0);
    return n;
}
