// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RequestMetrics: what `wasinn serve` counts of the HTTP requests it answers (count by status,
// latency, in flight, queued, rejected), rendered as Prometheus text next to the wasi-nn
// metrics (docs/metrics.md). Thread-safe: record() from the server's threads, render() from a
// scrape's.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/nn_metrics.h"

namespace wasinn {

class RequestMetrics {
 public:
  // outcome: "completed", or how the answer was cut (cut:timeout, cut:client-left, cut:shutdown).
  // path: the request's, for the route label (route_of); empty leaves the request out of it;
  // kOtherRoute: a path the server knows is none of its routes.
  void record(int status, uint64_t micros, std::string_view outcome = "completed", std::string_view path = {});

  // Distinct routes kept; past them a new path counts as route "other", so a client asking for
  // ever new paths cannot grow the server.
  static constexpr size_t kMaxRoutes = 100;
  // The label of the paths that take no slot (a path starts with '/': none is read as this).
  static constexpr std::string_view kOtherRoute = "other";
  // The route label of a request: its path without the query, at most 128 bytes; "unmatched" for
  // a 404 (nothing serves that path: a scanner's guesses must not take the kMaxRoutes slots);
  // "other" for a 401 (the path was not looked at: a client without a key takes no slot either).
  static std::string route_of(int status, std::string_view path);

  // What the server knows at the moment of a scrape.
  struct Gauges {
    uint64_t in_flight = 0, running = 0, queued = 0, rejected = 0;
    // Connections open, and those refused at once past --max-connections (a server that does
    // not count them leaves both out: has_connections false).
    bool has_connections = false;
    uint64_t connections = 0, connections_refused = 0;
  };
  std::string render(const Gauges& gauges) const;

 private:
  mutable std::mutex mu_;
  std::map<int, uint64_t> by_status_;
  std::map<std::string, uint64_t, std::less<>> by_outcome_;
  std::map<std::pair<std::string, std::string>, uint64_t> by_route_;  // (route, outcome)
  std::set<std::string, std::less<>> routes_;                         // the distinct routes in by_route_
  // The compute buckets serve requests too: a request is at least one compute.
  std::array<uint64_t, kComputeSecondsBuckets.size() + 1> buckets_{};  // last: +Inf; not cumulative
  uint64_t micros_ = 0;
};

}  // namespace wasinn
