#define _GNU_SOURCE
#include "tandem_link.h"
#include "send_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <uv.h>

/* One socket's slot: what waits to be sent, and what epoll is asked for. */
struct slot {
    unsigned char *held;
    uint32_t length;      /* bytes held */
    uint32_t capacity;    /* of `held` */
    uint8_t watched;      /* in the epoll set */
    uint8_t want_out;     /* the server asked for a writable event */
    uint8_t out_on;       /* EPOLLOUT is in the set's interest */
};

static int epfd = -1;
static uv_loop_t *loop;
static struct slot *slots;
static int slot_count;
static unsigned long long taken;

unsigned long long tandem_links_taken(void) { return taken; }

int tandem_link_open(void *uv_loop) {
    if (epfd >= 0) return epfd;
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) return -errno;
    loop = uv_loop;
    return epfd;
}

static struct slot *slot_of(int fd) {
    if (fd < 0) return NULL;
    if (fd >= slot_count) {
        int count = slot_count ? slot_count : 1024;
        while (count <= fd) count *= 2;
        struct slot *grown = realloc(slots, sizeof *grown * (size_t)count);
        if (!grown) return NULL;
        memset(grown + slot_count, 0, sizeof *grown * (size_t)(count - slot_count));
        slots = grown;
        slot_count = count;
    }
    return &slots[fd];
}

static struct slot *existing(int fd) {
    return fd >= 0 && fd < slot_count ? &slots[fd] : NULL;
}

/* Brings the set's interest for `fd` in line with what it needs. */
static void update_interest(int fd, struct slot *s) {
    int out = s->length > 0 || s->want_out;
    if (!s->watched || out == s->out_on) return;
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0);
    ev.data.fd = fd;
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0) s->out_on = (uint8_t)out;
}

int tandem_link_take(struct lws *wsi) {
    if (epfd < 0 || !wsi) return -1;
    int fd = lws_get_socket_fd(wsi);
    if (fd < 0 || lws_partial_buffered(wsi)) return -1;
    /* lws stops watching the socket now (with libuv: its poll handle stops,
     * which removes the socket from libuv's epoll set). */
    lws_rx_flow_control(wsi, LWS_RXFLOW_REASON_FLAG_PROCESS_NOW);
    if (loop) {
        /* Expected: ENOENT. Still registered means lws' watcher is still on
         * (something asked it for writable): leave the connection to lws. */
        struct epoll_event ev;
        memset(&ev, 0, sizeof ev);
        if (epoll_ctl(uv_backend_fd(loop), EPOLL_CTL_DEL, fd, &ev) == 0) {
            ev.events = EPOLLIN;
            ev.data.fd = fd;
            (void)epoll_ctl(uv_backend_fd(loop), EPOLL_CTL_ADD, fd, &ev);
            lws_rx_flow_control(wsi, 1 | LWS_RXFLOW_REASON_FLAG_PROCESS_NOW);
            return -1;
        }
    }
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        lws_rx_flow_control(wsi, 1 | LWS_RXFLOW_REASON_FLAG_PROCESS_NOW);
        return -1;
    }
    struct slot *s = slot_of(own);
    int stand_in = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (!s || stand_in < 0 || dup3(stand_in, fd, O_CLOEXEC) < 0) {
        if (stand_in >= 0) close(stand_in);
        close(own);
        lws_rx_flow_control(wsi, 1 | LWS_RXFLOW_REASON_FLAG_PROCESS_NOW);
        return -1;
    }
    close(stand_in);
    /* From here lws holds a socket that was never connected: whatever it
     * still does with it (a shutdown, a close) touches nothing of the client's. */
    memset(s, 0, sizeof *s);
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = own;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, own, &ev) != 0) {
        close(own);
        return -2; /* the client's socket is gone with it: the caller closes */
    }
    s->watched = 1;
    taken++;
    tandem_batch_fix(own);
    return own;
}

int tandem_link_wait(tandem_link_event *events, int max) {
    struct epoll_event ev[256];
    if (max > 256) max = 256;
    int n;
    do { n = epoll_wait(epfd, ev, max, 0); } while (n < 0 && errno == EINTR);
    for (int i = 0; i < n; i++) {
        unsigned int e = 0;
        if (ev[i].events & (EPOLLIN | EPOLLRDHUP)) e |= TANDEM_LINK_IN;
        if (ev[i].events & EPOLLOUT) e |= TANDEM_LINK_OUT;
        if (ev[i].events & (EPOLLHUP | EPOLLERR)) e |= TANDEM_LINK_HUP | TANDEM_LINK_IN;
        events[i].fd = ev[i].data.fd;
        events[i].events = e;
    }
    return n < 0 ? 0 : n;
}

ssize_t tandem_link_read(int fd, unsigned char *buffer, size_t capacity) {
    ssize_t n;
    do { n = recv(fd, buffer, capacity, MSG_DONTWAIT); } while (n < 0 && errno == EINTR);
    if (n >= 0) return n;
    return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
}

int tandem_link_holds(int fd) {
    struct slot *s = existing(fd);
    return s && s->length > 0;
}

size_t tandem_link_held(int fd) {
    struct slot *s = existing(fd);
    return s ? s->length : 0;
}

void tandem_link_want_writable(int fd, int on) {
    struct slot *s = existing(fd);
    if (!s) return;
    s->want_out = (uint8_t)(on != 0);
    update_interest(fd, s);
}

int tandem_link_hold(int fd, const struct iovec *iov, int count, size_t skip, size_t total) {
    struct slot *s = slot_of(fd);
    if (!s) return -1;
    size_t rest = total - skip;
    size_t needed = (size_t)s->length + rest;
    if (needed > UINT32_MAX) return -1;
    if (needed > s->capacity) {
        size_t capacity = s->capacity ? s->capacity : 256;
        while (capacity < needed) capacity *= 2;
        unsigned char *grown = realloc(s->held, capacity);
        if (!grown) return -1;
        s->held = grown;
        s->capacity = (uint32_t)capacity;
    }
    tandem_gather(s->held + s->length, iov, count, skip);
    s->length = (uint32_t)needed;
    update_interest(fd, s);
    return 0;
}

int tandem_link_flush(int fd) {
    struct slot *s = existing(fd);
    if (!s || s->length == 0) return 1;
    ssize_t sent;
    do { sent = send(fd, s->held, s->length, MSG_NOSIGNAL | MSG_DONTWAIT); } while (sent < 0 && errno == EINTR);
    if (sent < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if ((uint32_t)sent < s->length) {
        memmove(s->held, s->held + sent, s->length - (size_t)sent);
        s->length -= (uint32_t)sent;
        return 0;
    }
    /* All out: the buffer goes, so that an idle connection holds none. */
    free(s->held);
    s->held = NULL;
    s->length = 0;
    s->capacity = 0;
    update_interest(fd, s);
    return 1;
}

int tandem_link_send_frame(int fd, int opcode, const unsigned char *payload, size_t length) {
    unsigned char header[10];
    size_t nh = tandem_frame_header(header, length);
    header[0] = (unsigned char)(0x80 | (opcode & 0x0f));
    struct iovec iov[2] = { { header, nh }, { (void *)payload, length } };
    size_t total = nh + length;
    if (tandem_link_holds(fd)) return tandem_link_hold(fd, iov, 2, 0, total) == 0 ? 0 : -1;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = length ? 2 : 1;
    ssize_t sent;
    do { sent = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT); } while (sent < 0 && errno == EINTR);
    if (sent == (ssize_t)total) return 1;
    if (sent < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        sent = 0;
    }
    return tandem_link_hold(fd, iov, 2, (size_t)sent, total) == 0 ? 0 : -1;
}

void tandem_link_shutdown(int fd) {
    if (fd >= 0) (void)shutdown(fd, SHUT_WR);
}

void tandem_link_close(int fd) {
    tandem_batch_unfix(fd); /* before the close: the ring holds a reference */
    struct slot *s = existing(fd);
    if (s) {
        free(s->held);
        memset(s, 0, sizeof *s);
    }
    if (fd >= 0) close(fd);
}
