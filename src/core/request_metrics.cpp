#include "core/request_metrics.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace wasinn {

void RequestMetrics::record(int status, uint64_t micros) {
  const double seconds = static_cast<double>(micros) / 1e6;
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(kComputeSecondsBuckets.begin(), kComputeSecondsBuckets.end(), seconds) -
      kComputeSecondsBuckets.begin());
  std::lock_guard lock(mu_);
  ++by_status_[status];
  ++buckets_[bucket];
  micros_ += micros;
}

std::string RequestMetrics::render(const Gauges& gauges) const {
  std::string out;
  auto it = std::back_inserter(out);
  auto family = [&](std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(it, "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  std::lock_guard lock(mu_);
  family("wasinn_http_requests_total", "counter", "HTTP requests answered, by status code.");
  for (const auto& [status, n] : by_status_) fmt::format_to(it, "wasinn_http_requests_total{{code=\"{}\"}} {}\n", status, n);
  family("wasinn_http_request_duration_seconds", "histogram",
         "From a request's arrival to its answer's last byte, queueing included.");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    cumulative += buckets_[i];
    if (i < kComputeSecondsBuckets.size()) {
      fmt::format_to(it, "wasinn_http_request_duration_seconds_bucket{{le=\"{}\"}} {}\n", kComputeSecondsBuckets[i], cumulative);
    } else {
      fmt::format_to(it, "wasinn_http_request_duration_seconds_bucket{{le=\"+Inf\"}} {}\n", cumulative);
    }
  }
  fmt::format_to(it, "wasinn_http_request_duration_seconds_sum {}\n", static_cast<double>(micros_) / 1e6);
  fmt::format_to(it, "wasinn_http_request_duration_seconds_count {}\n", cumulative);
  family("wasinn_http_requests_in_flight", "gauge", "Requests arrived and not yet answered whole.");
  fmt::format_to(it, "wasinn_http_requests_in_flight {}\n", gauges.in_flight);
  family("wasinn_http_guests_running", "gauge", "Guest instances executing a request.");
  fmt::format_to(it, "wasinn_http_guests_running {}\n", gauges.running);
  family("wasinn_http_requests_queued", "gauge", "Requests waiting for a worker.");
  fmt::format_to(it, "wasinn_http_requests_queued {}\n", gauges.queued);
  family("wasinn_http_requests_rejected_total", "counter", "Requests answered 503 because the queue was full.");
  fmt::format_to(it, "wasinn_http_requests_rejected_total {}\n", gauges.rejected);
  return out;
}

}  // namespace wasinn
