// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RequestMetrics: what `wasinn serve` counts of its HTTP requests and the Prometheus text of it.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "serve/request_metrics.h"

namespace wasinn::unit {
namespace {

TEST(RequestMetrics, CountsByStatusAndBucketsTheLatency) {
  RequestMetrics m;
  m.record(200, 50);         // 50 us: the first bucket (le 0.0001)
  m.record(200, 3000);       // 3 ms: le 0.005
  m.record(504, 120000000);  // 120 s: only +Inf
  const std::string text = m.render({3, 2, 1, 7});
  EXPECT_NE(text.find("wasinn_http_requests_total{code=\"200\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("wasinn_http_requests_total{code=\"504\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_bucket{le=\"0.0001\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_bucket{le=\"0.0025\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_bucket{le=\"0.005\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_bucket{le=\"60\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_bucket{le=\"+Inf\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_count 3\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_request_duration_seconds_sum 120.00305\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_requests_in_flight 3\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_guests_running 2\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_requests_queued 1\n"), std::string::npos);
  EXPECT_NE(text.find("wasinn_http_requests_rejected_total 7\n"), std::string::npos);
  // Every family has its HELP and TYPE.
  EXPECT_NE(text.find("# TYPE wasinn_http_request_duration_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE wasinn_http_requests_rejected_total counter\n"), std::string::npos);
}

TEST(RequestMetrics, CountsOutcomesAndConnections) {
  RequestMetrics m;
  m.record(200, 50);
  m.record(200, 50, "cut:client-left");
  m.record(504, 50, "cut:timeout");
  const std::string without = m.render({});
  EXPECT_NE(without.find("wasinn_http_request_outcomes_total{outcome=\"completed\"} 1\n"), std::string::npos)
      << without;
  EXPECT_NE(without.find("wasinn_http_request_outcomes_total{outcome=\"cut:client-left\"} 1\n"), std::string::npos);
  EXPECT_NE(without.find("wasinn_http_request_outcomes_total{outcome=\"cut:timeout\"} 1\n"), std::string::npos);
  EXPECT_EQ(without.find("wasinn_http_connections"), std::string::npos);  // a server that does not count them
  const std::string with = m.render({0, 0, 0, 0, true, 5, 12});
  EXPECT_NE(with.find("wasinn_http_connections_open 5\n"), std::string::npos) << with;
  EXPECT_NE(with.find("wasinn_http_connections_refused_total 12\n"), std::string::npos);
}

TEST(RequestMetrics, CountsRoutesByOutcomeAndBoundsThem) {
  RequestMetrics m;
  m.record(200, 50, "completed", "/v1/chat/completions?x=1");
  m.record(200, 50, "cut:timeout", "/v1/chat/completions");
  m.record(404, 50, "completed", "/wp-admin");
  m.record(401, 50, "completed", "/made-up-without-a-key");     // the path was not looked at: "other"
  m.record(405, 50, "completed", RequestMetrics::kOtherRoute);  // a path the server says is none of its routes
  m.record(200, 50);                                            // no path: counted, but in no route
  for (size_t i = 0; i < RequestMetrics::kMaxRoutes + 5; ++i) m.record(200, 50, "completed", "/p" + std::to_string(i));
  const std::string text = m.render({});
  EXPECT_NE(text.find("wasinn_http_route_requests_total{route=\"/v1/chat/completions\",outcome=\"completed\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("wasinn_http_route_requests_total{route=\"/v1/chat/completions\",outcome=\"cut:timeout\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("wasinn_http_route_requests_total{route=\"unmatched\",outcome=\"completed\"} 1\n"),
            std::string::npos);
  // The chat route and 98 of the /pN took the 100 slots ("unmatched" is one too, "other" none); 7 more
  // count as "other", with the 401 and the 405.
  EXPECT_NE(text.find("wasinn_http_route_requests_total{route=\"other\",outcome=\"completed\"} 9\n"),
            std::string::npos);
  EXPECT_EQ(text.find("route=\"/p99\""), std::string::npos);
  EXPECT_EQ(text.find("made-up"), std::string::npos);
}

TEST(RequestMetrics, RecordsFromManyThreadsWithoutLosingOne) {
  RequestMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) m.record(200, 100);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_NE(m.render({}).find("wasinn_http_requests_total{code=\"200\"} 4000\n"), std::string::npos);
}

}  // namespace
}  // namespace wasinn::unit
