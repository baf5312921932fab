// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ConnectionLimit: --max-connections for one transport of the OIP server (REST or gRPC): the
// client connections open, and past the limit a new one refused at once, counted and logged
// (at info, one line a second at most with how many were refused since: a client that opens
// connections in a loop cannot flood the log).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace wasinn::oip_server {

class ConnectionLimit {
 public:
  // transport: "REST" or "gRPC", for the log; limit: connections open at once (0: no limit).
  ConnectionLimit(std::string transport, uint64_t limit) : transport_(std::move(transport)), limit_(limit) {}

  // A connection just accepted from `peer` (HOST:PORT, or "" when not known): true when it may stay open (then counted
  // until closed()), false when `limit` are open already (counted as refused, and logged).
  bool admit(std::string_view peer);
  void closed() { open_.fetch_sub(1); }

  uint64_t limit() const { return limit_; }
  uint64_t open() const { return open_.load(); }
  uint64_t refused() const { return refused_.load(); }

 private:
  const std::string transport_;
  const uint64_t limit_;
  std::atomic<uint64_t> open_{0}, refused_{0};
  std::mutex log_mu_;
  std::chrono::steady_clock::time_point last_log_{};  // under log_mu_
  uint64_t unlogged_ = 0;                             // refusals since the last line, under log_mu_
};

}  // namespace wasinn::oip_server
