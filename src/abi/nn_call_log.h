// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one log line of a refused wasi-nn call, the same for every guest ABI. A guest sees only an
// error code, so the reason reaches the default level (a warning) without -v, bounded so that a
// guest retrying in a loop cannot flood the log: each kind of refusal (module, function, outcome)
// warns the first time it happens in the process and again at its 10th, 100th, 1,000th... time
// with the count; every other one is debug (-vv). end_of_sequence (the end of every token stream)
// and calls their caller cancelled are always debug.
//
// And, at --log-level trace, a line per call as it returns (NnCallTrace): "nn [REQUEST]
// MODULE::FUNCTION -> OUTCOME in MS", REQUEST the session's (core/request_trace.h).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/request_trace.h"

namespace wasinn {

// module: "wasi_ephemeral_nn" or "wasi:nn/graph@0.2.0-rc-2024-10-28"; code: the ABI's own word
// or number for the error, as the guest sees it.
void log_nn_refusal(std::string_view module, std::string_view function, const Error& error, std::string_view code,
                    bool cancelled = false);

// One wasi-nn call's trace line, logged when it goes; while it lives the thread's plugin calls
// carry `request_id` (which must outlive it). The outcome is "ok" unless set.
class NnCallTrace {
 public:
  NnCallTrace(std::string_view module, std::string_view function, const std::string& request_id);
  ~NnCallTrace();
  NnCallTrace(const NnCallTrace&) = delete;
  NnCallTrace& operator=(const NnCallTrace&) = delete;
  // `outcome` must outlive the trace (a static name: errc_name's, error_code_case's).
  void set_outcome(std::string_view outcome) { outcome_ = outcome; }

 private:
  bool on_;
  RequestScope scope_;
  std::string module_;
  std::string_view function_;
  std::string_view outcome_ = "ok";
  std::chrono::steady_clock::time_point start_;
};

}  // namespace wasinn
