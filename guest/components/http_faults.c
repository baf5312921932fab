// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * http_faults: a wasi:http/proxy component (KIND http) that misbehaves on request, for the
 * server's tests of faults and limits (tests/serve/serve_test.py). No wasi:nn use.
 *
 *   /ok              200 text/plain "ok", whatever the method (the body, if any, is not read:
 *                    a POST /ok tests the host's body limit)
 *   GET /trap        the guest traps (__builtin_trap) before answering: the host's 500
 *   GET /spin        loops forever: only the host's request timeout (epoch interruption) ends it
 *   GET /sleep?ms=N  busy-waits N ms on wasi:clocks/monotonic-clock.now (no yield to the host),
 *                    then 200 text/plain "slept"; 400 when N is not a number of 0..600000
 *   GET /count       adds one to a global and answers its value: "1" on a host that gives every
 *                    request a fresh instance (a reused one would count up)
 *   GET /stderr      writes "http_faults: a line on stderr" to wasi:cli/stderr, then 200 "written"
 *   anything else    404 text/plain "not found"
 * Only GET for the others. The request body, if any, is not read.
 */
#include <stdlib.h>
#include <string.h>

#include "http_guest.h"

static void text(wh_response_outparam out, int status, const char* body) {
  hg_respond(out, status, "text/plain", body, strlen(body));
}

static void route(wh_incoming_request req, wh_response_outparam out, const hg_request* rp) {
  (void)req;
  const hg_request r = *rp;
  if (!strcmp(r.path, "/ok")) {
    text(out, 200, "ok");
  } else if (r.method != WH_GET) {
    text(out, 404, "not found");
  } else if (!strcmp(r.path, "/count")) {
    static int count;
    char digits[16];
    int n = ++count, len = 0;
    do digits[len++] = (char)('0' + n % 10);
    while ((n /= 10) && len < 15);
    char answer[16];
    for (int i = 0; i < len; ++i) answer[i] = digits[len - 1 - i];
    answer[len] = '\0';
    text(out, 200, answer);
  } else if (!strcmp(r.path, "/stderr")) {
    static const char kLine[] = "http_faults: a line on stderr\n";
    wh_output_stream err = wh_get_stderr();
    const int failed = wh_write_all(err, kLine, sizeof kLine - 1);
    wh_output_stream_drop(err);
    text(out, failed ? 500 : 200, failed ? "stderr failed" : "written");
  } else if (!strcmp(r.path, "/trap")) {
    __builtin_trap();
  } else if (!strcmp(r.path, "/spin")) {
    volatile uint64_t n = 0;
    for (;;) n = n + 1;
  } else if (!strcmp(r.path, "/sleep")) {
    char* ms = hg_query_get(r.query, "ms");
    char* end = NULL;
    long v = ms && *ms ? strtol(ms, &end, 10) : -1;
    if (!end || *end || v < 0 || v > 600000) {
      text(out, 400, "ms must be a number of milliseconds, 0..600000");
    } else {
      uint64_t until = wh_monotonic_now() + (uint64_t)v * 1000000u;
      while (wh_monotonic_now() < until) {
      }
      text(out, 200, "slept");
    }
    free(ms);
  } else {
    text(out, 404, "not found");
  }
}

WH_EXPORT_HANDLE void handle(wh_incoming_request req, wh_response_outparam out) { hg_handle(req, out, route); }
