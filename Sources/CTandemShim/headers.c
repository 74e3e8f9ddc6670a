#include "tandem_headers.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* MARK: lws 4.1's header table, read in place
 *
 * lws 4.1 keeps the request's header names it does not know (and names it
 * would know but for a stray byte: `Transfer-Encoding :` with a space is the
 * unknown name "transfer-encoding :") in a private list, and its public API
 * only looks names up exactly. To refuse a name that is not an RFC 9110
 * token, the shim reads that list through copies of the two private structs
 * of lws 4.1 (lib/core-net/private-lib-core-net.h: the head of `struct lws`;
 * lib/roles/http/private-lib-roles-http.h: `struct allocated_headers`),
 * whose layout depends only on options in the installed lws_config.h. Every
 * read is checked against what the public API says first (context, vhost,
 * protocol, owner, buffer size, the URI fragment); when one disagrees (another
 * lws build) the check says "unknown" and the server logs that once. */

struct tandem_lws_fragments {
    uint32_t offset;
    uint16_t len;
    uint8_t nfrag;
    uint8_t flags;
};

struct tandem_allocated_headers {
    struct tandem_allocated_headers *next;
    struct lws *wsi;
    char *data;
    uint32_t data_length;
    struct tandem_lws_fragments frags[WSI_TOKEN_COUNT];
    time_t assigned;
    uint8_t frag_index[WSI_TOKEN_COUNT];
#if defined(LWS_WITH_CLIENT)
    char initial_handshake_hash_base64[30];
#endif
    int hdr_token_idx;
    uint32_t pos;
    uint32_t http_response;
    uint32_t current_token_limit;
    uint32_t unk_pos;
#if defined(LWS_WITH_CUSTOM_HEADERS)
    uint32_t unk_value_pos;
    uint32_t unk_ll_head;
    uint32_t unk_ll_tail;
#endif
};

struct tandem_wsi_head {
    /* struct lws_a */
    struct lws_context *context;
    struct lws_vhost *vhost;
    const struct lws_protocols *protocol;
    void *opaque_user_data;
    /* struct _lws_http_mode_related, up to its ah */
    struct lws *new_wsi_list;
    unsigned char *pending_return_headers;
    size_t pending_return_headers_len;
    size_t prh_content_length;
#if defined(LWS_WITH_HTTP_PROXY)
    void *rw;
    void *buflist_post_body;
#endif
    struct tandem_allocated_headers *ah;
};

static const enum lws_token_indexes uri_tokens[] = {
    WSI_TOKEN_GET_URI, WSI_TOKEN_POST_URI, WSI_TOKEN_PUT_URI,
    WSI_TOKEN_DELETE_URI, WSI_TOKEN_HEAD_URI, WSI_TOKEN_OPTIONS_URI,
};

/* The header table of `wsi` if the copies above match this lws, else NULL. */
static struct tandem_allocated_headers *header_table(struct lws *wsi, unsigned int data_length) {
    const struct tandem_wsi_head *head = (const struct tandem_wsi_head *)wsi;
    if (head->context != lws_get_context(wsi) || head->vhost != lws_get_vhost(wsi)
        || head->protocol != lws_get_protocol(wsi))
        return NULL;
    struct tandem_allocated_headers *ah = head->ah;
    if (!ah || ((uintptr_t)ah & 7) || ah->wsi != wsi || ah->data_length != data_length
        || ah->pos > data_length || !ah->data)
        return NULL;
    /* The request's URI as lws reads it out must be where the copy says. */
    for (size_t i = 0; i < sizeof(uri_tokens) / sizeof(uri_tokens[0]); i++) {
        int length = lws_hdr_fragment_length(wsi, uri_tokens[i], 0);
        if (length <= 0) continue;
        uint8_t index = ah->frag_index[uri_tokens[i]];
        if (!index || index >= WSI_TOKEN_COUNT) return NULL;
        const struct tandem_lws_fragments *f = &ah->frags[index];
        if (f->len != length || f->offset + (uint32_t)length > ah->pos) return NULL;
        char first[64];
        int n = lws_hdr_copy_fragment(wsi, first, length < 63 ? length + 1 : 64, uri_tokens[i], 0);
        if (length < 63 && (n != length || memcmp(first, ah->data + f->offset, (size_t)length))) return NULL;
        return ah;
    }
    return NULL;
}

/* RFC 9110 5.6.2: tchar. */
static int is_tchar(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return 1;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static uint32_t be16(const char *p) { return ((uint32_t)(unsigned char)p[0] << 8) | (unsigned char)p[1]; }
static uint32_t be32(const char *p) { return (be16(p) << 16) | be16(p + 2); }

int tandem_bad_header_name(struct lws *wsi, unsigned int data_length, char *out, int outlen) {
#if !defined(LWS_WITH_CUSTOM_HEADERS)
    (void)wsi; (void)data_length; (void)out; (void)outlen;
    return -1;
#else
    struct tandem_allocated_headers *ah = header_table(wsi, data_length);
    if (!ah) return -1;
    /* Each unknown header: 16-bit name length, 16-bit value length, 32-bit
     * offset of the next (0: last), then the name with its colon, then the value. */
    uint32_t ll = ah->unk_ll_head;
    for (int count = 0; ll && count < 4096; count++) {
        if (ll + 8 > ah->pos) return -1;
        const char *record = ah->data + ll;
        uint32_t nlen = be16(record), next = be32(record + 4);
        if (nlen == 0 || ll + 8 + nlen > ah->pos || record[8 + nlen - 1] != ':') return -1;
        const char *name = record + 8;
        int bad = nlen == 1; /* ":" alone: an empty name */
        for (uint32_t i = 0; !bad && i + 1 < nlen; i++) bad = !is_tchar((unsigned char)name[i]);
        if (bad) {
            if (out && outlen > 0) {
                int n = (int)nlen - 1 < outlen - 1 ? (int)nlen - 1 : outlen - 1;
                memcpy(out, name, (size_t)n);
                out[n] = '\0';
            }
            return 1;
        }
        if (next && next <= ll) return -1;
        ll = next;
    }
    return 0;
#endif
}

int tandem_header_bytes(struct lws *wsi, unsigned int data_length) {
    struct tandem_allocated_headers *ah = header_table(wsi, data_length);
    return ah ? (int)ah->pos : -1;
}

/* MARK: headers over the table: 431
 *
 * A request whose headers do not fit lws' header table fails lws' parser,
 * which logs "Ran out of header data space" (or "More hdr frags than we can
 * deal with") and closes the socket without a word: no callback comes in
 * between. The log line comes synchronously from inside the parse of the
 * socket read last on this thread, and the close that follows begins with
 * shutdown(2) on that socket; so the server, on that log line, calls
 * tandem_header_overflow_note, and the shim's shutdown writes the 431 just
 * before the real one. Any recv or callback in between cancels it. Plain TCP
 * only: under TLS lws reads through OpenSSL and the bytes are not ours to write. */

static __thread int last_recv_fd = -1;
static __thread int pending_fd = -1;
static __thread int noted;
static char overflow_answer[1024];
static size_t overflow_answer_len;
static unsigned long long overflow_answered;

void tandem_header_overflow_answer(const char *answer, size_t len) {
    if (len > sizeof(overflow_answer)) len = 0;
    memcpy(overflow_answer, answer, len);
    overflow_answer_len = len;
}

int tandem_header_overflow_note(void) {
    if (noted) return 0;
    noted = 1;
    pending_fd = overflow_answer_len ? last_recv_fd : -1;
    return 1;
}

void tandem_header_overflow_clear(void) {
    pending_fd = -1;
    noted = 0;
}

unsigned long long tandem_header_overflow_answered(void) { return overflow_answered; }

void tandem_note_recv(int fd) {
    last_recv_fd = fd;
    pending_fd = -1;
    noted = 0;
}

int shutdown(int fd, int how) {
    if (pending_fd >= 0 && fd == pending_fd) {
        pending_fd = -1;
        noted = 0;
        /* The rest of the oversized head, already here, is read and dropped:
         * a close with unread bytes would be a reset, which can destroy the
         * answer before the client reads it. */
        char sink[4096];
        for (int i = 0; i < 64; i++) {
            long n = syscall(SYS_recvfrom, fd, sink, sizeof(sink), MSG_DONTWAIT, NULL, NULL);
            if (n <= 0) break;
        }
        if (syscall(SYS_sendto, fd, overflow_answer, overflow_answer_len, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0) > 0)
            overflow_answered++;
    }
    return (int)syscall(SYS_shutdown, fd, how);
}
