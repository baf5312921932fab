// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A REST request's body, read from civetweb as the component server reads one
// (src/serve/http/src/body.rs): at most --max-request-bytes (413 past it), at a least rate
// (--header-timeout, plus a second for each KiB that arrived; slower, 408), and a body over the
// limit read on and dropped for up to 8 MiB more at the same rate, so that a client still sending
// reads its 413 rather than a reset connection. ReadDeadlines cuts a read at the deadline:
// civetweb's own bound is only the silence between two reads.
#pragma once

#include <cstdint>
#include <string>

#include "serve/oip/read_deadlines.h"

struct mg_connection;

namespace wasinn::oip_server {

struct BodyLimits {
  uint64_t max_bytes = 0;              // --max-request-bytes; 0: no limit
  uint64_t timeout_ms = 0;             // --header-timeout; 0: no least rate
  ReadDeadlines* deadlines = nullptr;  // cuts a read at its deadline (needed with timeout_ms)
};

struct BodyRead {
  enum class End {
    whole,      // the body is in
    too_large,  // past max_bytes (413), declared or found while reading
    too_slow,   // slower than the least rate (408)
    broken,     // the client left, or sent a bad chunk (400)
  } end = End::whole;
  uint64_t bytes = 0;  // what arrived, dropped bytes included
  double seconds = 0;  // how long the reading took
};

// Reads the body of the request `conn` is answering into `body` (whole only when End::whole).
BodyRead read_request_body(mg_connection* conn, const BodyLimits& limits, std::string& body);

}  // namespace wasinn::oip_server
