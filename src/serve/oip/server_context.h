// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What both transports of one OIP server share: the models, the limits, the access log and
// request metrics, and whether the server is stopping (then not ready: 503/UNAVAILABLE to
// readiness probes, so a load balancer drains it). Owned by OipServer; the transports hold a
// reference for as long as they run.
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <memory>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "serve/api_keys.h"
#include "serve/request_metrics.h"
#include "serve/oip/model_set.h"
#include "wasinn/request_record.h"

namespace wasinn::oip_server {

// --tls-cert, --tls-key, --tls-client-ca: PEM files (cert empty: no TLS) for REST and gRPC, checked
// before the transports start (cli: check_tls_options).
struct TlsFiles {
  std::string cert, key, client_ca;
};

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
  // --api-key, --api-key-file: every route but health needs one (nullptr: none needed).
  std::shared_ptr<ApiKeys> keys = nullptr;
  std::atomic<uint64_t> requests{0};  // for request ids the server makes

  // Who asked, for the access log: the client's address, its X-Request-Id (or one made here,
  // echoed in the answer), its user agent.
  struct Client {
    std::string address, request_id, user_agent;
  };
  // A client's X-Request-Id is kept if it is a plain token of at most 128 bytes (it goes into the
  // log and the answer), else the server makes one.
  std::string request_id(std::string_view given) {
    const bool plain = !given.empty() && given.size() <= 128 && std::all_of(given.begin(), given.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view("-_.:/+=@").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(given);
    return std::to_string(started_ns) + "-" + std::to_string(requests.fetch_add(1));
  }

  // One access-log line and one count per request, from the transport's thread. route: the
  // metrics' route label for the path ("": the path; RequestMetrics::kOtherRoute for one that is
  // not the server's, so that made-up paths take no label).
  void record(std::string_view method, std::string_view path, int status, uint64_t bytes_in, uint64_t bytes_out,
              std::chrono::steady_clock::time_point started, std::string_view note, const Client& client = {},
              std::string_view outcome = "completed", std::string_view route = {}) {
    const auto micros = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count());
    metrics.record(status, micros, outcome, route.empty() ? path : route);
    if (!on_request) return;
    // The record's strings are C strings (wasinn/request_record.h): copies that end in NUL.
    const std::string c_method(method), c_path(path), c_note(note), c_agent(client.user_agent.substr(0, 256)),
        c_outcome(outcome);
    // By name: a field moved in the header fails here (designators keep its order) instead of
    // carrying another field's string.
    on_request(RequestRecord{.struct_size = sizeof(RequestRecord),
                             .status = status,
                             .bytes_in = bytes_in,
                             .bytes_out = bytes_out,
                             .micros = micros,
                             .method = c_method.c_str(),
                             .path = c_path.c_str(),
                             .note = c_note.c_str(),
                             .client = client.address.c_str(),
                             .request_id = client.request_id.c_str(),
                             .user_agent = c_agent.c_str(),
                             .outcome = c_outcome.c_str()});
  }

  // REST requests in progress, so that those still running at the end of --shutdown-timeout are
  // logged (cut:shutdown) before the process exits without them. begin_pending's ticket goes to
  // end_pending, which says false when cut_pending logged the request already.
  uint64_t begin_pending(std::string_view method, std::string_view path, const Client& client,
                         std::chrono::steady_clock::time_point started) {
    std::lock_guard lock(pending_mu);
    pending.emplace(++last_ticket, Pending{std::string(method), std::string(path), client, started});
    return last_ticket;
  }
  bool end_pending(uint64_t ticket) {
    std::lock_guard lock(pending_mu);
    return pending.erase(ticket) == 1;
  }
  // At the end of the drain (OipServer::stop_and_wait): every request still in progress, as a 503.
  void cut_pending() {
    std::map<uint64_t, Pending> cut;
    {
      std::lock_guard lock(pending_mu);
      cut.swap(pending);
    }
    for (const auto& [ticket, p] : cut)
      record(p.method, p.path, 503, 0, 0, p.started,
             "cut by the server: still in progress at the end of --shutdown-timeout", p.client, "cut:shutdown");
  }
  // Set at the end of the drain: a gRPC call cancelled then was cut by the server, not its client.
  std::atomic<bool> cutting{false};

  // Request ids of two runs do not collide: the clock at start leads them.
  uint64_t started_ns = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());

  // The pending registry's own (ServerContext stays an aggregate): use the functions above.
  struct Pending {
    std::string method, path;
    Client client;
    std::chrono::steady_clock::time_point started;
  };
  std::mutex pending_mu{};
  std::map<uint64_t, Pending> pending{};  // under pending_mu
  uint64_t last_ticket = 0;               // under pending_mu
};

}  // namespace wasinn::oip_server
