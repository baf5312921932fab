// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/metrics_endpoint.h"

#include <arpa/inet.h>

#include <cstring>
#include <stdexcept>

#include <civetweb.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <spdlog/spdlog.h>

#include "cli/cli_common.h"
#include "cli/host_port.h"
#include "cli/listen_check.h"
#include "cli/stderr_lines.h"
#include "core/prometheus_text.h"

namespace wasinn_cli {

namespace {

// What a scrape that shows no key (or a wrong one) gets: RFC 6750's challenge, as the servers'.
int refuse_unauthorized(mg_connection* conn, bool presented) {
  const char* body = presented ? "the API key is not one this server takes\n"
                               : "this server needs an API key: send it as 'Authorization: Bearer KEY'\n";
  mg_response_header_start(conn, 401);
  mg_response_header_add(conn, "Content-Type", "text/plain; charset=utf-8", -1);
  mg_response_header_add(conn, "Content-Length", std::to_string(std::strlen(body)).c_str(), -1);
  mg_response_header_add(conn, "WWW-Authenticate",
                         presented ? "Bearer realm=\"wasinn\", error=\"invalid_token\"" : "Bearer realm=\"wasinn\"",
                         -1);
  mg_response_header_send(conn);
  mg_write(conn, body, std::strlen(body));
  return 401;
}

// A C callback on one of civetweb's threads: nothing may throw out of it.
int serve_metrics(mg_connection* conn, void* data) noexcept {
  const mg_request_info* request = mg_get_request_info(conn);
  const bool head = std::strcmp(request->request_method, "HEAD") == 0;
  if (!head && std::strcmp(request->request_method, "GET") != 0) {
    mg_send_http_error(conn, 405, "only GET and HEAD are served here\n");
    return 405;
  }
  try {
    const auto& served = *static_cast<const MetricsEndpoint::Served*>(data);
    if (served.keys) {
      const char* authorization = mg_get_header(conn, "Authorization");
      if (!served.keys->check(authorization ? authorization : ""))
        return refuse_unauthorized(conn, authorization != nullptr);
    }
    const std::string text = served.text();
    const std::string content_type(wasinn::kPrometheusTextContentType);
    mg_send_http_ok(conn, content_type.c_str(), static_cast<long long>(text.size()));
    if (!head) mg_write(conn, text.data(), text.size());
    return 200;
  } catch (const std::exception& e) {
    mg_send_http_error(conn, 500, "%s\n", e.what());
    return 500;
  }
}

}  // namespace

MetricsAddress parse_metrics_address(const std::string& text) {
  const HostPort given =
      parse_host_port(text, "--metrics-addr", std::nullopt, "127.0.0.1:9464 or 127.0.0.1:0 (any free port)");
  MetricsAddress out{given.host == "localhost" ? "127.0.0.1" : given.host, given.port};
  in_addr ignored{};
  if (inet_pton(AF_INET, out.host.c_str(), &ignored) != 1) {
    throw UsageError(
        fmt::format("--metrics-addr '{}': the host must be an IPv4 address (or localhost), "
                    "e.g. 127.0.0.1 or 0.0.0.0 for every interface",
                    text));
  }
  return out;
}

MetricsEndpoint::MetricsEndpoint(const MetricsAddress& address, std::function<std::string()> text,
                                 std::shared_ptr<const wasinn::ApiKeys> keys)
    : served_{std::move(text), std::move(keys)} {
  const std::string listen = fmt::format("{}:{}", address.host, address.port);
  // Two threads: a scrape never waits for another; the guest's threads are not slowed by more.
  const char* options[] = {"listening_ports", listen.c_str(), "num_threads", "2", nullptr};
  mg_callbacks callbacks{};
  mg_init_library(0);
  // civetweb's master thread sets SIGPIPE to ignored for the whole process as it starts (after
  // mg_start returns, so it cannot be undone here); the CLI ignores it from its start (main.cpp).
  server_ = mg_start(&callbacks, nullptr, options);
  if (!server_) {
    mg_exit_library();
    throw std::runtime_error(
        fmt::format("--metrics-addr {}: cannot listen there (is the port taken, or the "
                    "address not one of this machine's?)",
                    listen));
  }
  mg_set_request_handler(server_, "/metrics$", serve_metrics, &served_);
  mg_server_port port{};
  const uint16_t chosen = mg_get_server_ports(server_, 1, &port) == 1 ? static_cast<uint16_t>(port.port) : address.port;
  url_ = fmt::format("http://{}:{}/metrics", address.host, chosen);
}

MetricsEndpoint::~MetricsEndpoint() {
  mg_stop(server_);
  mg_exit_library();
}

std::unique_ptr<MetricsEndpoint> start_metrics_endpoint(const std::optional<MetricsAddress>& address,
                                                        std::function<std::string()> text,
                                                        std::shared_ptr<const wasinn::ApiKeys> keys) {
  if (!address) return nullptr;
  const HostPort where{address->host, address->port};
  if (!reachable_from_other_machines(where)) {
    keys = nullptr;
  } else if (!keys) {
    spdlog::warn(
        "--metrics-addr {} is reachable from other machines and needs no key: anyone who reaches it can read the "
        "metrics (model names, request counts and times); listen on 127.0.0.1, or let only Prometheus reach the port",
        where.text());
  }
  auto endpoint = std::make_unique<MetricsEndpoint>(*address, std::move(text), std::move(keys));
  print_notice(fmt::format("wasinn: metrics at {}", endpoint->url()), {{"metrics_url", endpoint->url()}});
  return endpoint;
}

}  // namespace wasinn_cli
