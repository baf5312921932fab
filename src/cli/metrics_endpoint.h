// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MetricsEndpoint: the HTTP server of `--metrics-addr HOST:PORT` (civetweb): GET /metrics
// answers with `text()` (the Host's wasi-nn metrics, and a server's request metrics) as
// Prometheus text, to a scraper showing one of the server's API keys when it has to. It listens
// from construction to destruction (which waits for a request in progress); what `text` reads
// must outlive it, and be thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "serve/api_keys.h"
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
  // keys: what a scrape must show as `Authorization: Bearer KEY` (nullptr: none: 401 without).
  // Throws std::runtime_error when it cannot listen there (the port is taken, the address is
  // not this machine's).
  MetricsEndpoint(const MetricsAddress& address, std::function<std::string()> text,
                  std::shared_ptr<const wasinn::ApiKeys> keys = nullptr);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // http://HOST:PORT/metrics, with the port it listens on.
  const std::string& url() const { return url_; }

  // What a scrape's handler reads.
  struct Served {
    std::function<std::string()> text;
    std::shared_ptr<const wasinn::ApiKeys> keys;
  };

 private:
  Served served_;
  mg_context* server_ = nullptr;
  std::string url_;
};

// --metrics-addr's endpoint for a command: nullptr without an address; else listening, its URL
// printed on stderr. keys: the server's --api-key (nullptr: none). An address other machines can
// reach takes them (a scrape shows one, as every route but health does); on loopback none is
// needed (a scraper on the machine or in the pod). Reachable and with no key, it says so in one
// warning line, as --addr does. Throws std::runtime_error when it cannot listen there.
std::unique_ptr<MetricsEndpoint> start_metrics_endpoint(const std::optional<MetricsAddress>& address,
                                                        std::function<std::string()> text,
                                                        std::shared_ptr<const wasinn::ApiKeys> keys = nullptr);

}  // namespace wasinn_cli
