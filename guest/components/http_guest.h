// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * http_guest.h: what the HTTP component guests (http_*.c, KIND http) share: a growable byte
 * buffer, the request's method, path and query, its body, and whole or streamed responses. Over
 * wasi_http.h's imports; http_guest.c, which KIND http links into every such guest. No stdio:
 * the guests import nothing but wasi:http, wasi:io, wasi:clocks and wasi:nn.
 */
#ifndef HTTP_GUEST_H_
#define HTTP_GUEST_H_

#include <stddef.h>
#include <stdint.h>

#include "wasi_http.h"

/* A growable buffer, NUL-terminated after data[len] (so text can be used as a C string).
 * Out of memory traps. */
typedef struct {
  char* data;
  size_t len, cap;
} hg_buf;
void hg_buf_append(hg_buf* b, const void* data, size_t len);
void hg_buf_puts(hg_buf* b, const char* s);
/* Numbers in decimal. No printf here: wasi-libc's stdio brings WASI preview1 imports along. */
void hg_buf_int(hg_buf* b, int64_t v);
/* V to DIGITS significant digits as printf's %.<DIGITS>g writes it (1.5, 0.000123, 1.25e+20);
 * NaN and infinities as null (JSON has no such numbers). The digits come from double arithmetic:
 * exact enough that 9 digits read back as the same float (f32), not a correctly rounded
 * 17-digit double. */
void hg_buf_float(hg_buf* b, double v, int digits);
/* S (LEN bytes) as a JSON string, quoted and escaped. */
void hg_buf_json_string(hg_buf* b, const char* s, size_t len);
void hg_buf_free(hg_buf* b);
/* A wasi:nn error code by its WIT name (wnn_error_code_name), or error-code-N out of range. */
void hg_buf_nn_code(hg_buf* b, int32_t code);

/* The request line: the method (WH_GET ... WH_OTHER), the path before '?' and the query after
 * it ("" when none), both NUL-terminated and still percent-encoded. */
typedef struct {
  int method;
  char* path;
  char* query;
} hg_request;
void hg_request_read(wh_incoming_request req, hg_request* r);
void hg_request_free(hg_request* r);
/* incoming-handler.handle's body for a guest: reads the request line, calls HANDLER, then frees
 * the request line and drops the request. */
typedef void (*hg_handler)(wh_incoming_request req, wh_response_outparam out, const hg_request* r);
void hg_handle(wh_incoming_request req, wh_response_outparam out, hg_handler handler);
/* The percent-decoded value of KEY in QUERY (a=1&b=2), malloc'd; NULL when KEY is absent. */
char* hg_query_get(const char* query, const char* key);
/* Decodes %XX (and '+' as a space) in place. */
void hg_percent_decode(char* s);

/* Reads the whole request body into BODY (blocking-read until the stream is closed) and drops
 * the request's body; 0, or -1 when the body cannot be read. */
int hg_read_body(wh_incoming_request req, hg_buf* body);

/* A whole response with content-length: STATUS, CONTENT_TYPE (NULL for none) and BODY. */
void hg_respond(wh_response_outparam out, int status, const char* content_type, const void* body, size_t len);
/* STATUS with the JSON {"error": MESSAGE}. */
void hg_respond_error(wh_response_outparam out, int status, const char* message);

/* A streamed response: no content-length, so the host sends the body chunked (HTTP/1.1) as the
 * guest writes it. begin sends the status and headers; write writes and flushes one piece;
 * end finishes the body. write returns -1 once the client has gone (later writes do nothing). */
typedef struct {
  wh_outgoing_body body;
  wh_output_stream stream;
  int failed;
} hg_stream;
void hg_stream_begin(wh_response_outparam out, int status, const char* content_type, hg_stream* s);
/* begin, declaring (HTTP's Trailer header) the trailer field TRAILER that end_with_trailer may send. */
void hg_stream_begin_with_trailer(wh_response_outparam out, int status, const char* content_type, const char* trailer,
                                  hg_stream* s);
int hg_stream_write(hg_stream* s, const void* data, size_t len);
void hg_stream_end(hg_stream* s);
/* end, with one trailer field after the body (wasinn serve takes its own, wasinn-cut, off and logs
 * the answer as cut: docs/serving.md); declare it at begin. */
void hg_stream_end_with_trailer(hg_stream* s, const char* name, const char* value);

/* A GET of SCHEME://AUTHORITY PATH_WITH_QUERY (https when HTTPS) with no credentials and no
 * redirects followed (a 3xx is its status): hg_fetch's answer. */
typedef struct {
  int status;         /* the response's status; 0 when none came */
  char* content_type; /* its content-type, malloc'd ("" when none) */
  hg_buf body;        /* the body, read only for a 2xx status */
  int outcome;        /* HG_FETCH_* */
  hg_buf error;       /* why not HG_FETCH_OK, as text (the error-code's WIT name and payload) */
} hg_fetch_result;
enum { HG_FETCH_OK, HG_FETCH_FAILED, HG_FETCH_TIMEOUT, HG_FETCH_TOO_LARGE };
/* Stops at DEADLINE_NS (the monotonic clock's now() + the time allowed: TIMEOUT) and past
 * MAX_BYTES of body (TOO_LARGE: no more is read). Returns r->outcome; free r with
 * hg_fetch_result_free. */
int hg_fetch(int https, const char* authority, const char* path_with_query, uint64_t max_bytes, uint64_t deadline_ns,
             hg_fetch_result* r);
void hg_fetch_result_free(hg_fetch_result* r);

#endif /* HTTP_GUEST_H_ */
