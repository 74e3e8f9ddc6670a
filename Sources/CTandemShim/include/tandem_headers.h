// A request's header names and sizes, read from lws 4.1's header table, and
// the 431 for a request whose headers do not fit it (headers.c).
#ifndef TANDEM_HEADERS_H
#define TANDEM_HEADERS_H

#include <libwebsockets.h>
#include <stddef.h>

/// Whether a header name of the request on `wsi` is not an RFC 9110 token
/// (`Transfer-Encoding : chunked`, with a space before the colon, a name with
/// a control byte, an empty name): 1, with that name (cut to `outlen` - 1
/// bytes) in `out`; 0 when every name is a token; -1 when the header table
/// cannot be read (another lws build). `data_length`: the context's
/// `max_http_header_data`, checked against the table.
int tandem_bad_header_name(struct lws *wsi, unsigned int data_length, char *out, int outlen);

/// The bytes of lws' header table the request on `wsi` uses, or -1.
int tandem_header_bytes(struct lws *wsi, unsigned int data_length);

/// The whole HTTP answer (status line to body, at most 1024 bytes) written to
/// a socket whose request headers overflowed lws' table. Set once at start.
void tandem_header_overflow_answer(const char *answer, size_t len);

/// Called from lws' log line "Ran out of header data space" (or "More hdr
/// frags…"): the socket read last on this thread gets the answer at its shutdown.
/// 1 the first time for that request (lws writes the line more than once), else 0.
int tandem_header_overflow_note(void);

/// Cancels a noted overflow (any callback in between: the close did not follow).
void tandem_header_overflow_clear(void);

/// How many overflow answers were written.
unsigned long long tandem_header_overflow_answered(void);

/// The shim's recv notes each socket read (headers.c).
void tandem_note_recv(int fd);

#endif
