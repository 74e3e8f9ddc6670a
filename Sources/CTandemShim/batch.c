#include "tandem_batch.h"
#include "tandem_send.h"
#include "send_internal.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* One chunk: up to CHUNK frames copied into `arena`, sent with one submit. */
#define CHUNK 256
#define ARENA (256 * 1024)

struct queued { struct lws *wsi; int fd; unsigned char *bytes; size_t total; };
struct not_whole_entry { struct lws *wsi; int fd; };

static struct io_uring ring;
static int ready;
static unsigned char *arena;
static size_t used;
static struct queued queue[CHUNK];
static int queued;
static struct not_whole_entry *not_whole;
static int not_whole_count, not_whole_capacity;
static unsigned long long submits;
/* Sockets registered with the ring, by descriptor (tandem_batch_fix): the
 * table has `fixed_capacity` entries, one per descriptor below it. */
static unsigned char *fixed;
static int fixed_capacity;

unsigned long long tandem_batch_submits(void) { return submits; }

int tandem_batch_open(void) {
    if (ready) return 0;
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
    int rc = io_uring_queue_init_params(CHUNK, &ring, &params);
    if (rc == -EINVAL) { /* a kernel before 6.0 knows neither flag */
        memset(&params, 0, sizeof params);
        rc = io_uring_queue_init_params(CHUNK, &ring, &params);
    }
    if (rc < 0) return rc;
    arena = malloc(ARENA);
    if (!arena) { io_uring_queue_exit(&ring); return -ENOMEM; }
    ready = 1;
    /* A sparse table of registered files, one entry per possible descriptor
     * (up to the descriptor limit, at most 64 Ki): without it every send
     * looks its socket up and takes a reference for the send's length. */
    struct rlimit limit;
    int capacity = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? (int)limit.rlim_cur : 65536;
    fixed = calloc((size_t)capacity, 1);
    if (fixed && io_uring_register_files_sparse(&ring, (unsigned)capacity) == 0) {
        fixed_capacity = capacity;
    } else {
        free(fixed);
        fixed = NULL;
    }
    return 0;
}

void tandem_batch_fix(int fd) {
    if (fd < 0 || fd >= fixed_capacity || fixed[fd]) return;
    if (io_uring_register_files_update(&ring, (unsigned)fd, &fd, 1) == 1) fixed[fd] = 1;
}

void tandem_batch_unfix(int fd) {
    if (fd < 0 || fd >= fixed_capacity || !fixed[fd]) return;
    int none = -1;
    (void)io_uring_register_files_update(&ring, (unsigned)fd, &none, 1);
    fixed[fd] = 0;
}

static void remember_not_whole(struct lws *wsi, int fd) {
    if (not_whole_count == not_whole_capacity) {
        int capacity = not_whole_capacity ? 2 * not_whole_capacity : 64;
        struct not_whole_entry *grown = realloc(not_whole, sizeof *grown * (size_t)capacity);
        if (!grown) return; /* only the conflation hint is lost: lws still holds the bytes in order */
        not_whole = grown;
        not_whole_capacity = capacity;
    }
    not_whole[not_whole_count++] = (struct not_whole_entry){ wsi, fd };
}

/* Hands bytes skip.. of a queued frame to lws, which sends or buffers them first. */
static void hand_rest_to_lws(const struct queued *q, size_t skip) {
    struct iovec whole = { q->bytes, q->total };
    (void)tandem_hand_over(q->wsi, q->fd, &whole, 1, skip, q->total);
    remember_not_whole(q->wsi, q->fd);
}

int tandem_batch_flush(void) {
    if (queued > 0) {
        int rc;
        submits++;
        do { rc = io_uring_submit_and_wait(&ring, (unsigned)queued); } while (rc == -EINTR);
        int seen = 0;
        while (seen < queued) {
            struct io_uring_cqe *cqe;
            if (io_uring_wait_cqe(&ring, &cqe) < 0) break;
            struct queued *q = &queue[cqe->user_data];
            int res = cqe->res;
            io_uring_cqe_seen(&ring, cqe);
            seen++;
            if (res == (int)q->total) continue;
            if (res < 0 && res != -EAGAIN && res != -EINTR) continue; /* broken: lws finds out */
            hand_rest_to_lws(q, res > 0 ? (size_t)res : 0);
        }
        queued = 0;
        used = 0;
    }
    return not_whole_count;
}

struct lws *tandem_batch_not_whole(int i) {
    return i >= 0 && i < not_whole_count ? not_whole[i].wsi : NULL;
}

int tandem_batch_not_whole_fd(int i) {
    return i >= 0 && i < not_whole_count ? not_whole[i].fd : -1;
}

void tandem_batch_done(void) { not_whole_count = 0; }

void tandem_batch_text(struct lws *wsi, int fd, const unsigned char *a, size_t na,
                       const unsigned char *b, size_t nb,
                       const unsigned char *c, size_t nc) {
    unsigned char header[10];
    size_t payload = na + nb + nc;
    size_t nh = tandem_frame_header(header, payload);
    size_t total = nh + payload;
    if (!ready || fd < 0 || total > ARENA || tandem_holds_unsent(wsi, fd)) {
        /* Behind what lws holds, or too big for a chunk: the one-send path
         * (which hands it to lws when lws holds bytes). Sent after the queued
         * frames of other sockets; only its own socket's order matters. */
        if (tandem_send_text(wsi, fd, a, na, b, nb, c, nc) != 1) remember_not_whole(wsi, fd);
        return;
    }
    if (queued == CHUNK || used + total > ARENA) tandem_batch_flush();
    unsigned char *p = arena + used;
    unsigned char *frame = p;
    memcpy(p, header, nh);
    p += nh;
    if (na) { memcpy(p, a, na); p += na; }
    if (nb) { memcpy(p, b, nb); p += nb; }
    if (nc) { memcpy(p, c, nc); p += nc; }
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) { /* cannot happen: the ring holds a whole chunk */
        if (tandem_send_text(wsi, fd, a, na, b, nb, c, nc) != 1) remember_not_whole(wsi, fd);
        return;
    }
    io_uring_prep_send(sqe, fd, frame, total, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (fd < fixed_capacity && fixed[fd]) sqe->flags |= IOSQE_FIXED_FILE; /* index = descriptor */
    io_uring_sqe_set_data64(sqe, (unsigned long long)queued);
    queue[queued] = (struct queued){ wsi, fd, frame, total };
    queued++;
    used += total;
    tandem_note_batched_send();
}
