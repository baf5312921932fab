// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What both transports of one OIP server share: the models, the limits, the access log and
// request metrics, and whether the server is stopping (then not ready: 503/UNAVAILABLE to
// readiness probes, so a load balancer drains it). Owned by OipServer; the transports hold a
// reference for as long as they run.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "serve/request_metrics.h"
#include "serve/oip/model_set.h"
#include "wasinn/request_record.h"

namespace wasinn::oip_server {

struct ServerContext {
  ModelSet& models;
  uint64_t max_request_bytes = 0;                        // 0: no limit
  std::function<void(const RequestRecord&)> on_request;  // may be empty
  RequestMetrics& metrics;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> in_flight{0};  // every request being answered, for the metrics
  // REST requests that arrived before stopping and are not answered yet: what a stop drains
  // before it closes the listener (civetweb's mg_stop aborts the reads and writes in progress).
  // A request counts itself, then looks at `stopping` (both seq_cst), so the stop either sees
  // it here or the request sees the stop and answers 503 instead.
  std::atomic<uint64_t> working{0};

  // One access-log line and one count per request, from the transport's thread.
  void record(std::string_view method, std::string_view path, int status, uint64_t bytes_in, uint64_t bytes_out,
              std::chrono::steady_clock::time_point started, std::string_view note) {
    const auto micros = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count());
    metrics.record(status, micros);
    if (on_request) on_request(RequestRecord{method, path, status, bytes_in, bytes_out, micros, note});
  }
};

}  // namespace wasinn::oip_server
