// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/request_metrics.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "core/prometheus_text.h"

namespace wasinn {

std::string RequestMetrics::route_of(int status, std::string_view path) {
  if (status == 404) return "unmatched";
  if (status == 401) return std::string(kOtherRoute);
  return std::string(path.substr(0, std::min<size_t>(path.find('?'), 128)));
}

void RequestMetrics::record(int status, uint64_t micros, std::string_view outcome, std::string_view path) {
  const double seconds = static_cast<double>(micros) / 1e6;
  const size_t bucket =
      static_cast<size_t>(std::lower_bound(kComputeSecondsBuckets.begin(), kComputeSecondsBuckets.end(), seconds) -
                          kComputeSecondsBuckets.begin());
  std::lock_guard lock(mu_);
  ++by_status_[status];
  if (auto it = by_outcome_.find(outcome); it != by_outcome_.end())
    ++it->second;
  else
    by_outcome_.emplace(std::string(outcome), 1);
  ++buckets_[bucket];
  micros_ += micros;
  if (path.empty()) return;
  std::string route = route_of(status, path);
  if (route != kOtherRoute && !routes_.contains(route)) {
    if (routes_.size() >= kMaxRoutes)
      route = "other";
    else
      routes_.insert(route);
  }
  ++by_route_[{std::move(route), std::string(outcome)}];
}

std::string RequestMetrics::render(const Gauges& gauges) const {
  std::string out;
  auto it = std::back_inserter(out);
  std::lock_guard lock(mu_);
  append_family_header(out, "wasinn_http_requests_total", "counter", "HTTP requests answered, by status code.");
  for (const auto& [status, n] : by_status_)
    fmt::format_to(it, "wasinn_http_requests_total{{code=\"{}\"}} {}\n", status, n);
  append_family_header(out, "wasinn_http_request_outcomes_total", "counter",
                       "HTTP requests by how they ended: completed, or cut (cut:timeout, cut:client-left, "
                       "cut:shutdown), whatever status was sent before.");
  for (const auto& [outcome, n] : by_outcome_)
    fmt::format_to(it, "wasinn_http_request_outcomes_total{{outcome=\"{}\"}} {}\n", outcome, n);
  append_family_header(out, "wasinn_http_route_requests_total", "counter",
                       "HTTP requests by route (the path without its query; unmatched: answered 404) and outcome.");
  for (const auto& [key, n] : by_route_) {
    fmt::format_to(it, "wasinn_http_route_requests_total{{route=\"{}\",outcome=\"{}\"}} {}\n",
                   escape_label_value(key.first), key.second, n);
  }
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
  if (gauges.has_connections) {
    append_family_header(out, "wasinn_http_connections_open", "gauge", "Client connections open.");
    fmt::format_to(it, "wasinn_http_connections_open {}\n", gauges.connections);
    append_family_header(out, "wasinn_http_connections_refused_total", "counter",
                         "Connections closed at once because --max-connections were open.");
    fmt::format_to(it, "wasinn_http_connections_refused_total {}\n", gauges.connections_refused);
  }
  return out;
}

}  // namespace wasinn
