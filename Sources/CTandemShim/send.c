#include "tandem_send.h"
#include "send_internal.h"
#include "tandem_link.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

static unsigned long long direct_sends, handed_to_lws;

/* Frames up to this size are joined into one buffer before the send. */
#define CONTIGUOUS 4096

unsigned long long tandem_direct_sends(void) { return direct_sends; }
unsigned long long tandem_frames_handed_to_lws(void) { return handed_to_lws; }
void tandem_note_batched_send(void) { direct_sends++; }

size_t tandem_frame_header(unsigned char *h, size_t len) {
    h[0] = 0x81; /* FIN, text */
    if (len < 126) {
        h[1] = (unsigned char)len;
        return 2;
    }
    if (len <= 0xffff) {
        h[1] = 126;
        h[2] = (unsigned char)(len >> 8);
        h[3] = (unsigned char)len;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; i++) h[2 + i] = (unsigned char)((unsigned long long)len >> (56 - 8 * i));
    return 10;
}

void tandem_gather(unsigned char *p, const struct iovec *iov, int count, size_t skip) {
    for (int i = 0; i < count; i++) {
        size_t n = iov[i].iov_len;
        const unsigned char *src = iov[i].iov_base;
        if (skip >= n) { skip -= n; continue; }
        memcpy(p, src + skip, n - skip);
        p += n - skip;
        skip = 0;
    }
}

int tandem_hand_to_lws(struct lws *wsi, const struct iovec *iov, int count, size_t skip, size_t total) {
    size_t rest = total - skip;
    unsigned char *buf = malloc(LWS_PRE + rest);
    if (!buf) return -1;
    tandem_gather(buf + LWS_PRE, iov, count, skip);
    handed_to_lws++;
    /* LWS_WRITE_RAW: no framing, straight to lws' send-or-buffer. */
    int written = lws_write(wsi, buf + LWS_PRE, rest, LWS_WRITE_RAW);
    free(buf);
    return written < 0 ? -1 : 0;
}

int tandem_holds_unsent(struct lws *wsi, int fd) {
    return wsi ? lws_partial_buffered(wsi) : tandem_link_holds(fd);
}

int tandem_hand_over(struct lws *wsi, int fd, const struct iovec *iov, int count, size_t skip, size_t total) {
    if (wsi) return tandem_hand_to_lws(wsi, iov, count, skip, total);
    handed_to_lws++;
    return tandem_link_hold(fd, iov, count, skip, total);
}

int tandem_send_text(struct lws *wsi, int fd, const unsigned char *a, size_t na,
                     const unsigned char *b, size_t nb,
                     const unsigned char *c, size_t nc) {
    unsigned char header[10];
    size_t payload = na + nb + nc;
    size_t nh = tandem_frame_header(header, payload);
    struct iovec iov[4] = {
        { header, nh }, { (void *)a, na }, { (void *)b, nb }, { (void *)c, nc },
    };
    size_t total = nh + payload;
    if (fd < 0) return -1;
    if (tandem_holds_unsent(wsi, fd)) return tandem_hand_over(wsi, fd, iov, 4, 0, total) == 0 ? 0 : -1;
    ssize_t sent;
    if (total <= CONTIGUOUS) {
        /* A usual frame: joined on the stack and sent with send(), which the
         * kernel takes in faster than sendmsg()'s four-piece vector. */
        unsigned char frame[CONTIGUOUS];
        unsigned char *p = frame;
        for (int i = 0; i < 4; i++) {
            if (iov[i].iov_len) memcpy(p, iov[i].iov_base, iov[i].iov_len);
            p += iov[i].iov_len;
        }
        sent = send(fd, frame, total, MSG_NOSIGNAL | MSG_DONTWAIT);
    } else {
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = iov;
        msg.msg_iovlen = 4;
        sent = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    direct_sends++;
    if (sent == (ssize_t)total) return 1;
    if (sent < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
        sent = 0;
    }
    return tandem_hand_over(wsi, fd, iov, 4, (size_t)sent, total) == 0 ? 0 : -1;
}
