// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/nn_call_log.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "base/log.h"

namespace wasinn {
namespace {

// How many times each kind of refusal happened in this process. The keys are bounded (modules x
// functions x outcomes), so the map is too.
std::uint64_t count_refusal(std::string_view module, std::string_view function, Errc code) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, Errc>, std::uint64_t> counts;
  const std::lock_guard lock(mutex);
  return ++counts[{std::string(module), std::string(function), code}];
}

bool power_of_ten(std::uint64_t n) {
  while (n >= 10 && n % 10 == 0) n /= 10;
  return n == 1;
}

}  // namespace

void log_nn_refusal(std::string_view module, std::string_view function, const Error& error, std::string_view code,
                    bool cancelled) {
  const Errc e = error.code;
  if (cancelled || e == Errc::end_of_sequence) {
    logger().debug("{}::{} -> {} ({}): {}", module, function, errc_name(e), code, error.detail);
    return;
  }
  const std::uint64_t n = count_refusal(module, function, e);
  if (n == 1) {
    logger().warn("{}::{} -> {} ({}): {}", module, function, errc_name(e), code, error.detail);
  } else if (power_of_ten(n)) {
    // The same line with the count after it, so a reader of the log (or a grep) sees its form.
    logger().warn("{}::{} -> {} ({}): {} ({} times so far; -vv logs each)", module, function, errc_name(e), code,
                  error.detail, n);
  } else {
    logger().debug("{}::{} -> {} ({}): {}", module, function, errc_name(e), code, error.detail);
  }
}

NnCallTrace::NnCallTrace(std::string_view module, std::string_view function, const std::string& request_id)
    : on_(tracing()), scope_(request_id), function_(function) {
  if (!on_) return;
  module_ = module;
  start_ = std::chrono::steady_clock::now();
}

NnCallTrace::~NnCallTrace() {
  if (!on_) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  trace_line("nn", fmt::format("{}::{} -> {} in {:.3f} ms", module_, function_, outcome_, ms));
}

}  // namespace wasinn
