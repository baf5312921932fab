// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * One request a server answered, for an access log: what wasinn serve's HTTP front and the OIP
 * server report, to C++ (ServeOptions::on_request, wasinn/server.h), to C
 * (wasinn_serve_options_set_request_callback, wasinn/wasinn.h) and from serve/http's Rust server
 * (its ServeRecord, generated from this header in the build by rust-bindgen). This struct is the
 * one definition; plain C99.
 *
 * struct_size is sizeof the struct the server filled: fields are only ever added at its end, so
 * a reader built against an older header reads only the ones it knows, and a newer reader reads
 * a field only when struct_size covers it. The strings are NUL-terminated, never NULL ("" when
 * there is nothing to say), and valid during the call only.
 */
#ifndef WASINN_REQUEST_RECORD_H_
#define WASINN_REQUEST_RECORD_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wasinn_request_record_t {
  uint32_t struct_size;
  int32_t status;
  uint64_t bytes_in;  /* the request's body */
  uint64_t bytes_out; /* the answer's body, as sent */
  uint64_t micros;    /* from arrival to the answer's last byte */
  const char* method;
  const char* path;       /* with the query */
  const char* note;       /* why the host answered for the guest (a trap, a timeout, a full queue), or "" */
  const char* client;     /* the client's HOST:PORT, or "" */
  const char* request_id; /* the client's X-Request-Id when usable, else the server's; echoed in the answer */
  const char* user_agent; /* at most 256 bytes of it, or "" */
  /* "completed", or how the answer was cut, whatever status went first: "cut:timeout",
   * "cut:client-left", "cut:shutdown", "cut:error" (the answer's body failed midway, or its guest
   * said its work did). */
  const char* outcome;
} wasinn_request_record_t;

#ifdef __cplusplus
} /* extern "C" */

namespace wasinn {
using RequestRecord = wasinn_request_record_t;
}  // namespace wasinn
#endif

#endif /* WASINN_REQUEST_RECORD_H_ */
