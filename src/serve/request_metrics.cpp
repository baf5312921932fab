// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/request_metrics.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "core/prometheus_text.h"

namespace wasinn {

void RequestMetrics::record(int status, uint64_t micros) {
  const double seconds = static_cast<double>(micros) / 1e6;
  const size_t bucket =
      static_cast<size_t>(std::lower_bound(kComputeSecondsBuckets.begin(), kComputeSecondsBuckets.end(), seconds) -
                          kComputeSecondsBuckets.begin());
  std::lock_guard lock(mu_);
  ++by_status_[status];
  ++buckets_[bucket];
  micros_ += micros;
}

std::string RequestMetrics::render(const Gauges& gauges) const {
  std::string out;
  auto it = std::back_inserter(out);
  std::lock_guard lock(mu_);
  append_family_header(out, "wasinn_http_requests_total", "counter", "HTTP requests answered, by status code.");
  for (const auto& [status, n] : by_status_)
    fmt::format_to(it, "wasinn_http_requests_total{{code=\"{}\"}} {}\n", status, n);
  append_family_header(out, "wasinn_http_request_duration_seconds", "histogram",
                       "From a request's arrival to its answer's last byte, queueing included.");
  const uint64_t count = append_histogram_buckets(out, "wasinn_http_request_duration_seconds", "", buckets_);
  fmt::format_to(it, "wasinn_http_request_duration_seconds_sum {}\n", static_cast<double>(micros_) / 1e6);
  fmt::format_to(it, "wasinn_http_request_duration_seconds_count {}\n", count);
  append_family_header(out, "wasinn_http_requests_in_flight", "gauge", "Requests arrived and not yet answered whole.");
  fmt::format_to(it, "wasinn_http_requests_in_flight {}\n", gauges.in_flight);
  append_family_header(out, "wasinn_http_guests_running", "gauge", "Guest instances executing a request.");
  fmt::format_to(it, "wasinn_http_guests_running {}\n", gauges.running);
  append_family_header(out, "wasinn_http_requests_queued", "gauge", "Requests waiting for a worker.");
  fmt::format_to(it, "wasinn_http_requests_queued {}\n", gauges.queued);
  append_family_header(out, "wasinn_http_requests_rejected_total", "counter",
                       "Requests answered 503 because the queue was full.");
  fmt::format_to(it, "wasinn_http_requests_rejected_total {}\n", gauges.rejected);
  return out;
}

}  // namespace wasinn
