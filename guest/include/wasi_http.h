// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_http.h: hand-written C bindings of the part of wasi:http@0.2.12 (the wasi:http/proxy
 * world, with wasi:io and wasi:clocks) that the HTTP component guests use
 * (guest/components/http_*.c, built with KIND http by cmake/WasmComponentGuest.cmake). The WIT
 * is Wasmtime's (the wasmtime-wasi-http crate's wit/ directory), not kept in this repository.
 *
 * Canonical ABI (wasm32), as in wasi_nn_wit_common.h: handles are i32 (own and borrow alike; 0
 * is never a handle), strings and lists (ptr, len), results that flatten to more than one value
 * come back through a return pointer (the last parameter). Lists and strings the host returns
 * are allocated with the guest's cabi_realloc (free() them). jco's componentNew checks every
 * declaration below against the WIT, so a wrong one fails the build.
 *
 * The guest exports wasi:http/incoming-handler@0.2.12#handle: (own<incoming-request>,
 * own<response-outparam>) -> (). Hosts with any 0.2.x wasi:http take 0.2.12 imports by semver.
 */
#ifndef WASI_HTTP_H_
#define WASI_HTTP_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WASI_HTTP_VERSION "0.2.12"
#define WH_IMPORT(pkg_iface, name) __attribute__((import_module(pkg_iface "@" WASI_HTTP_VERSION), import_name(name)))
#define WH_EXPORT_HANDLE __attribute__((export_name("wasi:http/incoming-handler@" WASI_HTTP_VERSION "#handle")))

typedef int32_t wh_incoming_request;  /* own<incoming-request> */
typedef int32_t wh_response_outparam; /* own<response-outparam> */
typedef int32_t wh_incoming_body;
typedef int32_t wh_outgoing_response;
typedef int32_t wh_outgoing_body;
typedef int32_t wh_fields;
typedef int32_t wh_input_stream;  /* wasi:io/streams */
typedef int32_t wh_output_stream; /* wasi:io/streams */
typedef int32_t wh_io_error;      /* wasi:io/error */

/* variant method: get head post put delete connect options trace patch other(string);
 * 12 bytes, tag at 0, the other-string (ptr, len) at 4. */
enum { WH_GET, WH_HEAD, WH_POST, WH_PUT, WH_DELETE, WH_CONNECT, WH_OPTIONS, WH_TRACE, WH_PATCH, WH_OTHER };
typedef struct {
  uint8_t tag;
  char* other_ptr;
  uint32_t other_len;
} wh_method_;

/* option<string>: 12 bytes, 1 = some at 0, (ptr, len) at 4. */
typedef struct {
  uint8_t is_some;
  char* ptr;
  uint32_t len;
} wh_option_string_;

/* result<own<T>> (error `_`) and result<own<T>, header-error>: 8 bytes, 1 = err at 0, the handle
 * (or the header-error tag) at 4. */
typedef struct {
  uint8_t is_err;
  int32_t handle;
} wh_result_handle_;

/* wasi:io stream-error = variant { last-operation-failed(own<error>), closed }. As the error of
 * result<list<u8>, stream-error> and result<_, stream-error> (both 12 bytes): 1 = err at 0; ok:
 * the list (ptr, len) at 4; err: the stream-error's tag at 4 (0 = failed, 1 = closed), the
 * io-error handle at 8. */
typedef struct {
  uint8_t is_err;
  union {
    struct {
      uint8_t* ptr;
      uint32_t len;
    } ok;
    struct {
      uint8_t tag;
      wh_io_error error;
    } err;
  } val;
} wh_stream_result_;
_Static_assert(sizeof(wh_stream_result_) == 12, "result<list<u8>, stream-error> is 12 bytes");

/* tuple<field-name: string, field-value: list<u8>>: 16 bytes. */
typedef struct {
  const char* name;
  uint32_t name_len;
  const uint8_t* value;
  uint32_t value_len;
} wh_field;
_Static_assert(sizeof(wh_field) == 16, "a header tuple is 16 bytes");

/* result<_, error-code>: error-code is a variant with u64 payloads, so aligned to 8: tag at 0,
 * error-code at 8, 40 bytes. Only the tag is read here. */
typedef struct {
  _Alignas(8) uint8_t is_err;
  uint8_t error_code[39];
} wh_result_error_code_;

/* --- wasi:http/types ----------------------------------------------------------------------- */
WH_IMPORT("wasi:http/types", "[method]incoming-request.method")
void wh_incoming_request_method_(wh_incoming_request self, wh_method_* ret);
WH_IMPORT("wasi:http/types", "[method]incoming-request.path-with-query")
void wh_incoming_request_path_with_query_(wh_incoming_request self, wh_option_string_* ret);
/* consume: result<own<incoming-body>>, an error the second time. */
WH_IMPORT("wasi:http/types", "[method]incoming-request.consume")
void wh_incoming_request_consume_(wh_incoming_request self, wh_result_handle_* ret);
WH_IMPORT("wasi:http/types", "[resource-drop]incoming-request")
void wh_incoming_request_drop(wh_incoming_request self);
/* stream: result<own<input-stream>>; drop the stream before the body. */
WH_IMPORT("wasi:http/types", "[method]incoming-body.stream")
void wh_incoming_body_stream_(wh_incoming_body self, wh_result_handle_* ret);
WH_IMPORT("wasi:http/types", "[resource-drop]incoming-body")
void wh_incoming_body_drop(wh_incoming_body self);

/* from-list(list<tuple<field-name, field-value>>) -> result<own<fields>, header-error>. */
WH_IMPORT("wasi:http/types", "[static]fields.from-list")
void wh_fields_from_list_(const wh_field* entries, size_t count, wh_result_handle_* ret);
/* constructor(headers: own<headers>): takes the fields. */
WH_IMPORT("wasi:http/types", "[constructor]outgoing-response")
wh_outgoing_response wh_outgoing_response_new(wh_fields headers);
/* set-status-code(u16) -> result: 0 = ok, 1 = not a valid status. */
WH_IMPORT("wasi:http/types", "[method]outgoing-response.set-status-code")
int32_t wh_outgoing_response_set_status_code(wh_outgoing_response self, int32_t status);
/* body() -> result<own<outgoing-body>>: once only. */
WH_IMPORT("wasi:http/types", "[method]outgoing-response.body")
void wh_outgoing_response_body_(wh_outgoing_response self, wh_result_handle_* ret);
/* write() -> result<own<output-stream>>: once only; drop the stream before finish. */
WH_IMPORT("wasi:http/types", "[method]outgoing-body.write")
void wh_outgoing_body_write_(wh_outgoing_body self, wh_result_handle_* ret);
/* finish(this: own<outgoing-body>, trailers: option<own<trailers>>) -> result<_, error-code>:
 * the option flattens to (is_some, handle). */
WH_IMPORT("wasi:http/types", "[static]outgoing-body.finish")
void wh_outgoing_body_finish_(wh_outgoing_body self, int32_t has_trailers, int32_t trailers,
                              wh_result_error_code_* ret);
/* set(param: own<response-outparam>, response: result<own<outgoing-response>, error-code>).
 * The result flattens to 8 values: its tag, then the join of own (i32) and error-code's flat
 * form (tag; then its cases' payloads joined position by position: i32, i64 (option<u64>'s
 * value meets i32s), i32 x4 from option<field-size-payload>'s 6 slots). Ok: (0, handle, 0...). */
WH_IMPORT("wasi:http/types", "[static]response-outparam.set")
void wh_response_outparam_set_(wh_response_outparam param, int32_t is_err, int32_t p0, int32_t p1, int64_t p2,
                               int32_t p3, int32_t p4, int32_t p5, int32_t p6);

/* --- wasi:io/streams, wasi:io/error, wasi:clocks/monotonic-clock ---------------------------- */
/* blocking-read(len: u64) -> result<list<u8>, stream-error>: waits for at least one byte or
 * the end (closed). */
WH_IMPORT("wasi:io/streams", "[method]input-stream.blocking-read")
void wh_input_stream_blocking_read_(wh_input_stream self, int64_t len, wh_stream_result_* ret);
WH_IMPORT("wasi:io/streams", "[resource-drop]input-stream")
void wh_input_stream_drop(wh_input_stream self);
/* blocking-write-and-flush(list<u8>) -> result<_, stream-error>: at most 4096 bytes a call. */
WH_IMPORT("wasi:io/streams", "[method]output-stream.blocking-write-and-flush")
void wh_output_stream_blocking_write_and_flush_(wh_output_stream self, const void* ptr, size_t len,
                                                wh_stream_result_* ret);
WH_IMPORT("wasi:io/streams", "[resource-drop]output-stream")
void wh_output_stream_drop(wh_output_stream self);
WH_IMPORT("wasi:io/error", "[resource-drop]error")
void wh_io_error_drop(wh_io_error self);
/* get-stderr() -> own<output-stream>: the guest's stderr (the host's, where it inherits stdio). */
WH_IMPORT("wasi:cli/stderr", "get-stderr")
wh_output_stream wh_get_stderr(void);
/* now() -> instant: nanoseconds, u64. */
WH_IMPORT("wasi:clocks/monotonic-clock", "now")
uint64_t wh_monotonic_now(void);

/* --- outgoing requests (wasi:http/outgoing-handler), wasi:io/poll --------------------------- */
typedef int32_t wh_outgoing_request;
typedef int32_t wh_request_options;
typedef int32_t wh_future_incoming_response;
typedef int32_t wh_incoming_response;
typedef int32_t wh_pollable;

/* error-code: a variant of 39 cases (tag u8 at 0), its payloads aligned to 8 (option<u64>) at 8,
 * the largest option<field-size-payload> (24 bytes): 32 bytes. Cases with strings own them: see
 * wh_error_code_free. */
typedef struct {
  _Alignas(8) uint8_t tag;
  uint8_t payload[31];
} wh_error_code;
_Static_assert(sizeof(wh_error_code) == 32, "error-code is 32 bytes");
enum {
  WH_ERR_DNS_TIMEOUT = 0,
  WH_ERR_DNS_ERROR = 1,
  WH_ERR_CONNECTION_REFUSED = 6,
  WH_ERR_CONNECTION_TIMEOUT = 8,
  WH_ERR_CONNECTION_READ_TIMEOUT = 9,
  WH_ERR_TLS_ALERT_RECEIVED = 14,
  WH_ERR_HTTP_REQUEST_HEADER_SIZE = 22,
  WH_ERR_HTTP_REQUEST_TRAILER_SIZE = 24,
  WH_ERR_HTTP_RESPONSE_HEADER_SIZE = 27,
  WH_ERR_HTTP_RESPONSE_TRAILER_SIZE = 30,
  WH_ERR_HTTP_RESPONSE_TRANSFER_CODING = 31,
  WH_ERR_HTTP_RESPONSE_CONTENT_CODING = 32,
  WH_ERR_HTTP_RESPONSE_TIMEOUT = 33,
  WH_ERR_INTERNAL_ERROR = 38,
};

/* result<own<future-incoming-response>, error-code>: 1 = err at 0, the handle or the error-code
 * at 8; 40 bytes. */
typedef struct {
  _Alignas(8) uint8_t is_err;
  union {
    int32_t handle;
    wh_error_code error;
  } val;
} wh_result_handle_error_code_;
_Static_assert(sizeof(wh_result_handle_error_code_) == 40, "result<own<T>, error-code> is 40 bytes");

/* future-incoming-response.get: option<result<result<own<incoming-response>, error-code>>>:
 * 1 = some at 0; the outer result (1 = err: gotten already) at 8; the inner at 16 (40 bytes). */
typedef struct {
  _Alignas(8) uint8_t is_some;
  _Alignas(8) uint8_t outer_is_err;
  wh_result_handle_error_code_ inner;
} wh_future_response_get_;
_Static_assert(sizeof(wh_future_response_get_) == 56, "option<result<result<own<T>, error-code>>> is 56 bytes");

/* [constructor]fields: empty fields. */
WH_IMPORT("wasi:http/types", "[constructor]fields")
wh_fields wh_fields_new(void);
WH_IMPORT("wasi:http/types", "[resource-drop]fields")
void wh_fields_drop(wh_fields self);
/* get(name) -> list<field-value>: (ptr, len) of (ptr, len) pairs at the return pointer. */
WH_IMPORT("wasi:http/types", "[method]fields.get")
void wh_fields_get_(wh_fields self, const char* name, size_t name_len, void* ret);
/* constructor(headers: own<headers>): takes the fields; method GET, no scheme or authority. */
WH_IMPORT("wasi:http/types", "[constructor]outgoing-request")
wh_outgoing_request wh_outgoing_request_new(wh_fields headers);
WH_IMPORT("wasi:http/types", "[resource-drop]outgoing-request")
void wh_outgoing_request_drop(wh_outgoing_request self);
/* The setters return result (0 = ok, 1 = refused). scheme: option<scheme> flattens to (is_some,
 * tag (0 HTTP, 1 HTTPS, 2 other), other's ptr, len). */
WH_IMPORT("wasi:http/types", "[method]outgoing-request.set-scheme")
int32_t wh_outgoing_request_set_scheme_(wh_outgoing_request self, int32_t is_some, int32_t tag, const char* other,
                                        size_t other_len);
WH_IMPORT("wasi:http/types", "[method]outgoing-request.set-authority")
int32_t wh_outgoing_request_set_authority_(wh_outgoing_request self, int32_t is_some, const char* ptr, size_t len);
WH_IMPORT("wasi:http/types", "[method]outgoing-request.set-path-with-query")
int32_t wh_outgoing_request_set_path_with_query_(wh_outgoing_request self, int32_t is_some, const char* ptr,
                                                 size_t len);
WH_IMPORT("wasi:http/types", "[constructor]request-options")
wh_request_options wh_request_options_new(void);
WH_IMPORT("wasi:http/types", "[resource-drop]request-options")
void wh_request_options_drop(wh_request_options self);
/* set-*-timeout(option<duration>): (is_some, nanoseconds) -> result (0 = ok, 1 = not supported). */
WH_IMPORT("wasi:http/types", "[method]request-options.set-connect-timeout")
int32_t wh_request_options_set_connect_timeout_(wh_request_options self, int32_t is_some, uint64_t ns);
WH_IMPORT("wasi:http/types", "[method]request-options.set-first-byte-timeout")
int32_t wh_request_options_set_first_byte_timeout_(wh_request_options self, int32_t is_some, uint64_t ns);
WH_IMPORT("wasi:http/types", "[method]request-options.set-between-bytes-timeout")
int32_t wh_request_options_set_between_bytes_timeout_(wh_request_options self, int32_t is_some, uint64_t ns);
WH_IMPORT("wasi:http/types", "[method]future-incoming-response.subscribe")
wh_pollable wh_future_incoming_response_subscribe(wh_future_incoming_response self);
WH_IMPORT("wasi:http/types", "[method]future-incoming-response.get")
void wh_future_incoming_response_get_(wh_future_incoming_response self, wh_future_response_get_* ret);
WH_IMPORT("wasi:http/types", "[resource-drop]future-incoming-response")
void wh_future_incoming_response_drop(wh_future_incoming_response self);
WH_IMPORT("wasi:http/types", "[method]incoming-response.status")
int32_t wh_incoming_response_status(wh_incoming_response self);
/* headers() -> own<headers> (immutable; drop it before the response). */
WH_IMPORT("wasi:http/types", "[method]incoming-response.headers")
wh_fields wh_incoming_response_headers(wh_incoming_response self);
WH_IMPORT("wasi:http/types", "[method]incoming-response.consume")
void wh_incoming_response_consume_(wh_incoming_response self, wh_result_handle_* ret);
WH_IMPORT("wasi:http/types", "[resource-drop]incoming-response")
void wh_incoming_response_drop(wh_incoming_response self);
/* handle(request: own<outgoing-request>, options: option<own<request-options>>): both taken. */
WH_IMPORT("wasi:http/outgoing-handler", "handle")
void wh_outgoing_handler_handle_(wh_outgoing_request request, int32_t has_options, wh_request_options options,
                                 wh_result_handle_error_code_* ret);
/* read(len: u64): what is there now, maybe nothing; subscribe() is ready when more is (or the end). */
WH_IMPORT("wasi:io/streams", "[method]input-stream.read")
void wh_input_stream_read_(wh_input_stream self, int64_t len, wh_stream_result_* ret);
WH_IMPORT("wasi:io/streams", "[method]input-stream.subscribe")
wh_pollable wh_input_stream_subscribe(wh_input_stream self);
/* poll(list<borrow<pollable>>) -> list<u32>: the indexes of the ready ones, at the return pointer
 * as (ptr, len); blocks until one is. */
WH_IMPORT("wasi:io/poll", "poll")
void wh_poll_(const wh_pollable* in, size_t count, void* ret);
WH_IMPORT("wasi:io/poll", "[resource-drop]pollable")
void wh_pollable_drop(wh_pollable self);
/* subscribe-instant(when: instant) -> own<pollable>: ready at the monotonic clock's WHEN. */
WH_IMPORT("wasi:clocks/monotonic-clock", "subscribe-instant")
wh_pollable wh_monotonic_subscribe_instant(uint64_t when);

/* --- typed wrappers ------------------------------------------------------------------------ */

/* Drops a stream-error's io-error, if it has one. */
static inline void wh_stream_error_drop_(const wh_stream_result_* r) {
  if (r->is_err && r->val.err.tag == 0) wh_io_error_drop(r->val.err.error);
}

/* Writes all of data (in pieces of at most 4096 bytes, each flushed); 0, or -1 when the
 * stream failed or was closed (the client went away). */
static inline int wh_write_all(wh_output_stream s, const void* data, size_t len) {
  const uint8_t* p = (const uint8_t*)data;
  while (len > 0) {
    size_t n = len < 4096 ? len : 4096;
    wh_stream_result_ r;
    wh_output_stream_blocking_write_and_flush_(s, p, n, &r);
    if (r.is_err) {
      wh_stream_error_drop_(&r);
      return -1;
    }
    p += n;
    len -= n;
  }
  return 0;
}

/* Sends the response: the outparam and the response are taken. */
static inline void wh_outparam_set_response(wh_response_outparam param, wh_outgoing_response response) {
  wh_response_outparam_set_(param, 0, response, 0, 0, 0, 0, 0, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* WASI_HTTP_H_ */
