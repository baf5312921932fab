// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* http_guest.c: the helpers of http_guest.h (linked into every KIND http guest). */
#include "http_guest.h"

#include "wasi_nn_wit.h"

#include <stdlib.h>
#include <string.h>

static void reserve(hg_buf* b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char* p = realloc(b->data, cap);
  if (!p) __builtin_trap();
  b->data = p;
  b->cap = cap;
}

void hg_buf_append(hg_buf* b, const void* data, size_t len) {
  reserve(b, len);
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void hg_buf_puts(hg_buf* b, const char* s) { hg_buf_append(b, s, strlen(s)); }

void hg_buf_int(hg_buf* b, int64_t v) {
  char digits[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    digits[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) hg_buf_append(b, "-", 1);
  while (n) hg_buf_append(b, &digits[--n], 1);
}

void hg_buf_float(hg_buf* b, double v, int digits) {
  if (v != v || v - v != 0) { /* NaN or an infinity */
    hg_buf_puts(b, "null");
    return;
  }
  if (digits < 1) digits = 1;
  if (digits > 17) digits = 17;
  if (v < 0 || (v == 0 && 1 / v < 0)) {
    hg_buf_append(b, "-", 1);
    v = -v;
  }
  if (v == 0) {
    hg_buf_append(b, "0", 1);
    return;
  }
  /* Scale v to an integer m of DIGITS digits: v ~= m * 10^(exp10 - digits + 1). */
  double lo = 1, hi;
  for (int i = 1; i < digits; ++i) lo *= 10;
  hi = lo * 10;
  int exp10 = digits - 1;
  double x = v;
  while (x >= hi) {
    x /= 10;
    ++exp10;
  }
  while (x < lo) {
    x *= 10;
    --exp10;
  }
  uint64_t m = (uint64_t)x; /* rounded half to even, as printf does for an exact tie */
  double frac = x - (double)m;
  if (frac > 0.5 || (frac == 0.5 && (m & 1))) ++m;
  if ((double)m >= hi) { /* rounding carried into a new digit */
    m /= 10;
    ++exp10;
  }
  char d[20];
  for (int i = digits - 1; i >= 0; --i) {
    d[i] = (char)('0' + m % 10);
    m /= 10;
  }
  int n = digits;
  /* %g: exponent form when exp10 < -4 or exp10 >= digits; trailing zeros dropped either way. */
  if (exp10 < -4 || exp10 >= digits) {
    while (n > 1 && d[n - 1] == '0') --n;
    hg_buf_append(b, d, 1);
    if (n > 1) {
      hg_buf_append(b, ".", 1);
      hg_buf_append(b, d + 1, (size_t)n - 1);
    }
    hg_buf_append(b, exp10 < 0 ? "e-" : "e+", 2);
    int e = exp10 < 0 ? -exp10 : exp10;
    if (e < 10) hg_buf_append(b, "0", 1);
    hg_buf_int(b, e);
  } else if (exp10 >= 0) {
    int int_digits = exp10 + 1;
    while (n > int_digits && d[n - 1] == '0') --n;
    hg_buf_append(b, d, (size_t)int_digits);
    if (n > int_digits) {
      hg_buf_append(b, ".", 1);
      hg_buf_append(b, d + int_digits, (size_t)(n - int_digits));
    }
  } else {
    while (n > 1 && d[n - 1] == '0') --n;
    hg_buf_append(b, "0.", 2);
    for (int i = -1; i > exp10; --i) hg_buf_append(b, "0", 1);
    hg_buf_append(b, d, (size_t)n);
  }
}

void hg_buf_json_string(hg_buf* b, const char* s, size_t len) {
  hg_buf_append(b, "\"", 1);
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      hg_buf_append(b, esc, 2);
    } else if (c < 0x20) {
      static const char hex_digits[] = "0123456789abcdef";
      char esc[6] = {'\\', 'u', '0', '0', hex_digits[c >> 4], hex_digits[c & 15]};
      hg_buf_append(b, esc, 6);
    } else {
      hg_buf_append(b, &s[i], 1);
    }
  }
  hg_buf_append(b, "\"", 1);
}

void hg_buf_free(hg_buf* b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

static char* dup_n(const char* s, size_t n) {
  char* p = malloc(n + 1);
  if (!p) __builtin_trap();
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

void hg_request_read(wh_incoming_request req, hg_request* r) {
  wh_method_ m;
  wh_incoming_request_method_(req, &m);
  r->method = m.tag;
  if (m.tag == WH_OTHER) free(m.other_ptr);
  wh_option_string_ pq;
  wh_incoming_request_path_with_query_(req, &pq);
  const char* s = pq.is_some ? pq.ptr : "/";
  size_t n = pq.is_some ? pq.len : 1;
  const char* q = memchr(s, '?', n);
  size_t path_len = q ? (size_t)(q - s) : n;
  r->path = dup_n(s, path_len);
  r->query = q ? dup_n(q + 1, n - path_len - 1) : dup_n("", 0);
  if (pq.is_some) free(pq.ptr);
}

void hg_request_free(hg_request* r) {
  free(r->path);
  free(r->query);
  r->path = r->query = NULL;
}

void hg_handle(wh_incoming_request req, wh_response_outparam out, hg_handler handler) {
  hg_request r;
  hg_request_read(req, &r);
  handler(req, out, &r);
  hg_request_free(&r);
  wh_incoming_request_drop(req);
}

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void hg_percent_decode(char* s) {
  char* w = s;
  for (const char* p = s; *p; ++p) {
    if (*p == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
      *w++ = (char)(hex(p[1]) * 16 + hex(p[2]));
      p += 2;
    } else {
      *w++ = *p == '+' ? ' ' : *p;
    }
  }
  *w = '\0';
}

char* hg_query_get(const char* query, const char* key) {
  size_t key_len = strlen(key);
  for (const char* p = query; *p;) {
    const char* end = strchr(p, '&');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= key_len && !strncmp(p, key, key_len) && (n == key_len || p[key_len] == '=')) {
      char* v = n == key_len ? dup_n("", 0) : dup_n(p + key_len + 1, n - key_len - 1);
      hg_percent_decode(v);
      return v;
    }
    p += n;
    if (*p == '&') ++p;
  }
  return NULL;
}

int hg_read_body(wh_incoming_request req, hg_buf* body) {
  wh_result_handle_ r;
  wh_incoming_request_consume_(req, &r);
  if (r.is_err) return -1;
  wh_incoming_body incoming = r.handle;
  wh_incoming_body_stream_(incoming, &r);
  if (r.is_err) {
    wh_incoming_body_drop(incoming);
    return -1;
  }
  wh_input_stream stream = r.handle;
  int status = 0;
  for (;;) {
    wh_stream_result_ s;
    wh_input_stream_blocking_read_(stream, 64 * 1024, &s);
    if (s.is_err) {
      if (s.val.err.tag == 0) status = -1; /* last-operation-failed; closed is the end */
      wh_stream_error_drop_(&s);
      break;
    }
    hg_buf_append(body, s.val.ok.ptr, s.val.ok.len);
    free(s.val.ok.ptr);
  }
  wh_input_stream_drop(stream);
  wh_incoming_body_drop(incoming);
  return status;
}

/* A response with STATUS and the given headers; its body handle in *body. The response is
 * handed to the host (outparam set) before any body is written, so a large body streams. */
static void start(wh_response_outparam out, int status, const char* content_type, long content_length,
                  const char* trailer, wh_outgoing_body* body) {
  hg_buf length = {0};
  wh_field fields[3];
  uint32_t count = 0;
  if (trailer) fields[count++] = (wh_field){"trailer", 7, (const uint8_t*)trailer, (uint32_t)strlen(trailer)};
  if (content_type) {
    fields[count++] = (wh_field){"content-type", 12, (const uint8_t*)content_type, (uint32_t)strlen(content_type)};
  }
  if (content_length >= 0) {
    hg_buf_int(&length, content_length);
    fields[count++] = (wh_field){"content-length", 14, (const uint8_t*)length.data, (uint32_t)length.len};
  }
  wh_result_handle_ r;
  wh_fields_from_list_(fields, count, &r);
  hg_buf_free(&length);
  if (r.is_err) __builtin_trap(); /* a header this guest wrote is invalid: a bug here */
  wh_outgoing_response response = wh_outgoing_response_new(r.handle);
  if (wh_outgoing_response_set_status_code(response, status) != 0) __builtin_trap();
  wh_outgoing_response_body_(response, &r);
  if (r.is_err) __builtin_trap();
  *body = r.handle;
  wh_outparam_set_response(out, response);
}

static wh_output_stream body_stream(wh_outgoing_body body) {
  wh_result_handle_ r;
  wh_outgoing_body_write_(body, &r);
  if (r.is_err) __builtin_trap();
  return r.handle;
}

/* TRAILERS: a fields handle, or -1 for none. */
static void finish_with(wh_outgoing_body body, wh_fields trailers) {
  wh_result_error_code_ r;
  wh_outgoing_body_finish_(body, trailers >= 0, trailers >= 0 ? trailers : 0, &r);
  /* An error here (the client went away, or a length mismatch) has no one left to tell. */
}

static void finish(wh_outgoing_body body) { finish_with(body, -1); }

void hg_respond(wh_response_outparam out, int status, const char* content_type, const void* data, size_t len) {
  wh_outgoing_body body;
  start(out, status, content_type, (long)len, NULL, &body);
  wh_output_stream stream = body_stream(body);
  wh_write_all(stream, data, len);
  wh_output_stream_drop(stream);
  finish(body);
}

void hg_respond_error(wh_response_outparam out, int status, const char* message) {
  hg_buf b = {0};
  hg_buf_puts(&b, "{\"error\":");
  hg_buf_json_string(&b, message, strlen(message));
  hg_buf_puts(&b, "}\n");
  hg_respond(out, status, "application/json", b.data, b.len);
  hg_buf_free(&b);
}

void hg_stream_begin(wh_response_outparam out, int status, const char* content_type, hg_stream* s) {
  hg_stream_begin_with_trailer(out, status, content_type, NULL, s);
}

void hg_stream_begin_with_trailer(wh_response_outparam out, int status, const char* content_type, const char* trailer,
                                  hg_stream* s) {
  start(out, status, content_type, -1, trailer, &s->body);
  s->stream = body_stream(s->body);
  s->failed = 0;
}

int hg_stream_write(hg_stream* s, const void* data, size_t len) {
  if (s->failed) return -1;
  if (wh_write_all(s->stream, data, len) != 0) s->failed = 1;
  return s->failed ? -1 : 0;
}

void hg_stream_end(hg_stream* s) {
  wh_output_stream_drop(s->stream);
  finish(s->body);
}

void hg_stream_end_with_trailer(hg_stream* s, const char* name, const char* value) {
  wh_output_stream_drop(s->stream);
  wh_field field = {name, (uint32_t)strlen(name), (const uint8_t*)value, (uint32_t)strlen(value)};
  wh_result_handle_ r;
  wh_fields_from_list_(&field, 1, &r);
  if (r.is_err) __builtin_trap(); /* a trailer this guest wrote is invalid: a bug here */
  finish_with(s->body, r.handle);
}

void hg_buf_nn_code(hg_buf* b, int32_t code) {
  const char* name = wnn_error_code_name(code);
  if (name) {
    hg_buf_puts(b, name);
  } else {
    hg_buf_puts(b, "error-code-");
    hg_buf_int(b, code);
  }
}

/* --- hg_fetch: an outgoing GET ------------------------------------------------------------- */

/* error-code's cases by tag, as the WIT names them. */
static const char* const kErrorCodes[] = {"DNS-timeout",
                                          "DNS-error",
                                          "destination-not-found",
                                          "destination-unavailable",
                                          "destination-IP-prohibited",
                                          "destination-IP-unroutable",
                                          "connection-refused",
                                          "connection-terminated",
                                          "connection-timeout",
                                          "connection-read-timeout",
                                          "connection-write-timeout",
                                          "connection-limit-reached",
                                          "TLS-protocol-error",
                                          "TLS-certificate-error",
                                          "TLS-alert-received",
                                          "HTTP-request-denied",
                                          "HTTP-request-length-required",
                                          "HTTP-request-body-size",
                                          "HTTP-request-method-invalid",
                                          "HTTP-request-URI-invalid",
                                          "HTTP-request-URI-too-long",
                                          "HTTP-request-header-section-size",
                                          "HTTP-request-header-size",
                                          "HTTP-request-trailer-section-size",
                                          "HTTP-request-trailer-size",
                                          "HTTP-response-incomplete",
                                          "HTTP-response-header-section-size",
                                          "HTTP-response-header-size",
                                          "HTTP-response-body-size",
                                          "HTTP-response-trailer-section-size",
                                          "HTTP-response-trailer-size",
                                          "HTTP-response-transfer-coding",
                                          "HTTP-response-content-coding",
                                          "HTTP-response-timeout",
                                          "HTTP-upgrade-failed",
                                          "HTTP-protocol-error",
                                          "loop-detected",
                                          "configuration-error",
                                          "internal-error"};

/* The offset in an error-code of the option<string> its case holds, or 0 for none (the layouts:
 * wasi_http.h's wh_error_code; the payload starts at 8). */
static size_t error_string_at(uint8_t tag) {
  switch (tag) {
    case WH_ERR_DNS_ERROR: /* DNS-error-payload's rcode */
    case WH_ERR_HTTP_REQUEST_TRAILER_SIZE:
    case WH_ERR_HTTP_RESPONSE_HEADER_SIZE:
    case WH_ERR_HTTP_RESPONSE_TRAILER_SIZE: /* field-size-payload's field-name */
    case WH_ERR_HTTP_RESPONSE_TRANSFER_CODING:
    case WH_ERR_HTTP_RESPONSE_CONTENT_CODING:
    case WH_ERR_INTERNAL_ERROR: return 8;
    case WH_ERR_TLS_ALERT_RECEIVED: /* after option<u8> alert-id */
    case WH_ERR_HTTP_REQUEST_HEADER_SIZE: /* option<field-size-payload>'s field-name */ return 12;
    default: return 0;
  }
}

/* Appends the error-code's name (and its string, if any) to B and frees what the host gave it. */
static void error_code_take(const wh_error_code* e, hg_buf* b) {
  hg_buf_puts(b, e->tag < sizeof kErrorCodes / sizeof kErrorCodes[0] ? kErrorCodes[e->tag] : "unknown error");
  const size_t at = error_string_at(e->tag);
  if (!at) return;
  const uint8_t* base = (const uint8_t*)e;
  if (!base[at]) return;
  char* ptr;
  uint32_t len;
  memcpy(&ptr, base + at + 4, sizeof ptr);
  memcpy(&len, base + at + 8, sizeof len);
  hg_buf_puts(b, ": ");
  hg_buf_append(b, ptr, len);
  free(ptr);
}

/* Waits for P or DEADLINE_NS, whichever is first; 1 when P is ready. P stays the caller's. */
static int wait_until(wh_pollable p, uint64_t deadline_ns) {
  wh_pollable both[2] = {p, wh_monotonic_subscribe_instant(deadline_ns)};
  struct {
    uint32_t* ptr;
    uint32_t len;
  } ready = {0};
  wh_poll_(both, 2, &ready);
  int p_ready = 0;
  for (uint32_t i = 0; i < ready.len; ++i) p_ready |= ready.ptr[i] == 0;
  free(ready.ptr);
  wh_pollable_drop(both[1]);
  return p_ready;
}

static int fail(hg_fetch_result* r, int outcome, const char* why) {
  r->outcome = outcome;
  hg_buf_puts(&r->error, why);
  return outcome;
}

/* The first content-type of HEADERS (taken), or "". */
static char* content_type_of(wh_fields headers) {
  struct {
    struct {
      uint8_t* ptr;
      uint32_t len;
    } * ptr;
    uint32_t len;
  } values = {0};
  wh_fields_get_(headers, "content-type", 12, &values);
  char* type = values.len ? dup_n((const char*)values.ptr[0].ptr, values.ptr[0].len) : dup_n("", 0);
  for (uint32_t i = 0; i < values.len; ++i) free(values.ptr[i].ptr);
  free(values.ptr);
  wh_fields_drop(headers);
  return type;
}

/* Reads the body of RESPONSE into r->body, at most MAX_BYTES, until DEADLINE_NS. */
static int read_response_body(wh_incoming_response response, uint64_t max_bytes, uint64_t deadline_ns,
                              hg_fetch_result* r) {
  wh_result_handle_ h;
  wh_incoming_response_consume_(response, &h);
  if (h.is_err) return fail(r, HG_FETCH_FAILED, "the response's body could not be read");
  wh_incoming_body body = h.handle;
  wh_incoming_body_stream_(body, &h);
  if (h.is_err) {
    wh_incoming_body_drop(body);
    return fail(r, HG_FETCH_FAILED, "the response's body could not be read");
  }
  wh_input_stream stream = h.handle;
  r->outcome = HG_FETCH_OK;
  for (;;) {
    /* One byte past the limit says the body is larger, without reading the rest. */
    uint64_t want = max_bytes + 1 - r->body.len;
    if (want > 64 * 1024) want = 64 * 1024;
    wh_stream_result_ s;
    wh_input_stream_read_(stream, (int64_t)want, &s);
    if (s.is_err) {
      /* Past the deadline, a failure is the host's own timeout (the backstop set in hg_fetch). */
      if (s.val.err.tag == 0 && wh_monotonic_now() >= deadline_ns)
        fail(r, HG_FETCH_TIMEOUT, "the body did not arrive in time");
      else if (s.val.err.tag == 0)
        fail(r, HG_FETCH_FAILED, "the connection failed while the body was read");
      wh_stream_error_drop_(&s);
      break;
    }
    hg_buf_append(&r->body, s.val.ok.ptr, s.val.ok.len);
    free(s.val.ok.ptr);
    if (r->body.len > max_bytes) {
      fail(r, HG_FETCH_TOO_LARGE, "the body is larger than the limit");
      break;
    }
    if (s.val.ok.len == 0) {
      wh_pollable p = wh_input_stream_subscribe(stream);
      const int ready = wait_until(p, deadline_ns);
      wh_pollable_drop(p);
      if (!ready || wh_monotonic_now() >= deadline_ns) {
        fail(r, HG_FETCH_TIMEOUT, "the body did not arrive in time");
        break;
      }
    }
  }
  wh_input_stream_drop(stream);
  wh_incoming_body_drop(body);
  return r->outcome;
}

int hg_fetch(int https, const char* authority, const char* path_with_query, uint64_t max_bytes, uint64_t deadline_ns,
             hg_fetch_result* r) {
  memset(r, 0, sizeof *r);
  r->content_type = dup_n("", 0);
  const uint64_t now = wh_monotonic_now();
  if (now >= deadline_ns) return fail(r, HG_FETCH_TIMEOUT, "no time was left");
  static const char kAccept[] = "image/*";
  wh_field accept = {"accept", 6, (const uint8_t*)kAccept, sizeof kAccept - 1};
  wh_result_handle_ fr;
  wh_fields_from_list_(&accept, 1, &fr);
  if (fr.is_err) __builtin_trap(); /* a header this guest wrote is invalid: a bug here */
  wh_outgoing_request req = wh_outgoing_request_new(fr.handle);
  if (wh_outgoing_request_set_scheme_(req, 1, https ? 1 : 0, NULL, 0) ||
      wh_outgoing_request_set_authority_(req, 1, authority, strlen(authority)) ||
      wh_outgoing_request_set_path_with_query_(req, 1, path_with_query, strlen(path_with_query))) {
    wh_outgoing_request_drop(req);
    return fail(r, HG_FETCH_FAILED, "the URL's host or path is not valid in a request");
  }
  /* The host's own timeouts too, a second past the time left: a backstop, so that the deadline
   * polled here is what ends a slow fetch and says so. */
  wh_request_options options = wh_request_options_new();
  const uint64_t left = deadline_ns - now + 1000000000ull;
  wh_request_options_set_connect_timeout_(options, 1, left);
  wh_request_options_set_first_byte_timeout_(options, 1, left);
  wh_request_options_set_between_bytes_timeout_(options, 1, left);
  wh_result_handle_error_code_ sent;
  wh_outgoing_handler_handle_(req, 1, options, &sent);
  if (sent.is_err) {
    r->outcome = sent.val.error.tag == WH_ERR_CONNECTION_TIMEOUT ? HG_FETCH_TIMEOUT : HG_FETCH_FAILED;
    error_code_take(&sent.val.error, &r->error);
    return r->outcome;
  }
  wh_future_incoming_response future = sent.val.handle;
  wh_pollable p = wh_future_incoming_response_subscribe(future);
  const int ready = wait_until(p, deadline_ns);
  wh_pollable_drop(p);
  wh_future_response_get_ got;
  if (!ready) {
    wh_future_incoming_response_drop(future);
    return fail(r, HG_FETCH_TIMEOUT, "no answer came in time");
  }
  wh_future_incoming_response_get_(future, &got);
  if (!got.is_some || got.outer_is_err) {
    wh_future_incoming_response_drop(future);
    return fail(r, HG_FETCH_FAILED, "no answer");
  }
  if (got.inner.is_err) {
    const uint8_t tag = got.inner.val.error.tag;
    r->outcome = tag == WH_ERR_CONNECTION_TIMEOUT || tag == WH_ERR_CONNECTION_READ_TIMEOUT ||
                         tag == WH_ERR_HTTP_RESPONSE_TIMEOUT || tag == WH_ERR_DNS_TIMEOUT ||
                         wh_monotonic_now() >= deadline_ns
                     ? HG_FETCH_TIMEOUT
                     : HG_FETCH_FAILED;
    error_code_take(&got.inner.val.error, &r->error);
    wh_future_incoming_response_drop(future);
    return r->outcome;
  }
  wh_incoming_response response = got.inner.val.handle;
  r->status = wh_incoming_response_status(response);
  free(r->content_type);
  r->content_type = content_type_of(wh_incoming_response_headers(response));
  r->outcome = HG_FETCH_OK;
  if (r->status >= 200 && r->status < 300) read_response_body(response, max_bytes, deadline_ns, r);
  wh_incoming_response_drop(response);
  wh_future_incoming_response_drop(future);
  return r->outcome;
}

void hg_fetch_result_free(hg_fetch_result* r) {
  free(r->content_type);
  r->content_type = NULL;
  hg_buf_free(&r->body);
  hg_buf_free(&r->error);
}
