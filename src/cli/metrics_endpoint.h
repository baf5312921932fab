// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MetricsEndpoint: the HTTP server of `--metrics-addr HOST:PORT` (civetweb): GET /metrics
// answers with `text()` (the Host's wasi-nn metrics, and a server's request metrics) as
// Prometheus text. It listens from construction to destruction (which waits for a request in
// progress); what `text` reads must outlive it, and be thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "wasinn/host.h"

struct mg_context;

namespace wasinn_cli {

struct MetricsAddress {
  std::string host;   // an IPv4 address ("localhost" is read as 127.0.0.1)
  uint16_t port = 0;  // 0: any free port
};

// HOST:PORT; throws UsageError naming what is wrong.
MetricsAddress parse_metrics_address(const std::string& text);

class MetricsEndpoint {
 public:
  // Throws std::runtime_error when it cannot listen there (the port is taken, the address is
  // not this machine's).
  MetricsEndpoint(const MetricsAddress& address, std::function<std::string()> text);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // http://HOST:PORT/metrics, with the port it listens on.
  const std::string& url() const { return url_; }

 private:
  std::function<std::string()> text_;
  mg_context* server_ = nullptr;
  std::string url_;
};

// --metrics-addr's endpoint for a command: nullptr without an address; else listening, its URL
// printed on stderr. Throws std::runtime_error when it cannot listen there.
std::unique_ptr<MetricsEndpoint> start_metrics_endpoint(const std::optional<MetricsAddress>& address,
                                                        std::function<std::string()> text);

}  // namespace wasinn_cli
