// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/rest_body.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include <civetweb.h>

namespace wasinn::oip_server {

namespace {

using Clock = ReadDeadlines::Clock;

// The slowest body taken, in bytes a second, after --header-timeout: the component server's
// (body.rs, MIN_BODY_BYTES_PER_SECOND), as Apache's mod_reqtimeout's MinRate.
constexpr uint64_t kMinBytesPerSecond = 1024;
// A body over the limit is read on and dropped up to this much more before the 413 (body.rs's DRAIN).
constexpr uint64_t kDrainBytes = 8u << 20;
constexpr uint64_t kNoCap = std::numeric_limits<uint64_t>::max();

// The body's clock: it may take timeout_ms, plus a second for each KiB that arrived.
class LeastRate {
 public:
  explicit LeastRate(uint64_t timeout_ms) : start_(Clock::now()), timeout_ms_(timeout_ms) {}
  bool bounded() const { return timeout_ms_ != 0; }
  Clock::time_point deadline(uint64_t seen) const {
    return start_ + std::chrono::milliseconds(timeout_ms_ + seen * 1000 / kMinBytesPerSecond);
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  const Clock::time_point start_;
  const uint64_t timeout_ms_;
};

enum class Pumped { end, cap, too_slow, broken };

// Reads the body into `take` until its end (`length`: Content-Length's; none: chunked, or no
// body), or until `seen` reaches `cap`, under `rate`.
Pumped pump(mg_connection* conn, std::optional<uint64_t> length, uint64_t cap, const LeastRate& rate,
            ReadDeadlines* deadlines, uint64_t& seen, const std::function<void(const char*, size_t)>& take) {
  std::vector<char> buf(65536);  // not on civetweb's 100 KiB stack
  for (;;) {
    if (length && seen >= *length) return Pumped::end;
    if (seen >= cap) return Pumped::cap;
    uint64_t want = buf.size();
    if (length) want = std::min(want, *length - seen);
    want = std::min(want, cap - seen);
    const bool armed = rate.bounded() && deadlines;
    if (armed) {
      const auto deadline = rate.deadline(seen), now = Clock::now();
      if (now >= deadline) return Pumped::too_slow;
      // civetweb's read returns once it has `want` bytes: at most what the time left covers at
      // the least rate, so that a client keeping to it has them counted (and its deadline moved)
      // before the deadline passes.
      const auto left_ms =
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
      want = std::clamp<uint64_t>(left_ms * kMinBytesPerSecond / 1000, 1, want);
      deadlines->arm(deadline);
    }
    const int n = mg_read(conn, buf.data(), static_cast<size_t>(want));
    const bool cut = armed && deadlines->disarm();
    if (n > 0) {
      seen += static_cast<uint64_t>(n);
      take(buf.data(), static_cast<size_t>(n));
    }
    if (n == 0 && !length) return Pumped::end;  // chunked: the last chunk (or no body at all)
    // A chunked read cut midway leaves civetweb's chunk state broken: no reading on after it.
    if (cut && (n < 0 || !length)) return Pumped::too_slow;
    if (n >= 0) continue;  // 0: civetweb's silence bound passed with nothing; the least rate decides
    return Pumped::broken;
  }
}

}  // namespace

BodyRead read_request_body(mg_connection* conn, const BodyLimits& limits, std::string& body) {
  const mg_request_info* info = mg_get_request_info(conn);
  std::optional<uint64_t> length;
  if (info->content_length >= 0) length = static_cast<uint64_t>(info->content_length);
  const uint64_t max = limits.max_bytes ? limits.max_bytes : kNoCap;
  const LeastRate rate(limits.timeout_ms);
  BodyRead read;
  auto keep = [&body](const char* data, size_t n) { body.append(data, n); };
  auto drop = [](const char*, size_t) {};
  auto finish = [&](BodyRead::End end) {
    read.end = end;
    read.seconds = rate.seconds();
    if (end != BodyRead::End::whole) body.clear();
    return read;
  };
  if (length && *length > max) {
    if (*length - max <= kDrainBytes) pump(conn, length, kNoCap, rate, limits.deadlines, read.bytes, drop);
    return finish(BodyRead::End::too_large);
  }
  if (length) body.reserve(static_cast<size_t>(*length));
  switch (pump(conn, length, max == kNoCap ? kNoCap : max + 1, rate, limits.deadlines, read.bytes, keep)) {
    case Pumped::end: return finish(BodyRead::End::whole);
    case Pumped::cap:  // a chunked body past the limit
      body.clear();
      pump(conn, std::nullopt, max + 1 + kDrainBytes, rate, limits.deadlines, read.bytes, drop);
      return finish(BodyRead::End::too_large);
    case Pumped::too_slow: return finish(BodyRead::End::too_slow);
    case Pumped::broken: break;
  }
  return finish(BodyRead::End::broken);
}

}  // namespace wasinn::oip_server
