// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Calling a backend plugin's C ABI (include/wasinn/backend_plugin.h) from the core: whether a
// plugin's table has a function, a call's trace line, and its status and detail as a core Error.
// Plain helpers.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/request_trace.h"
#include "wasinn/backend_plugin.h"

// True when the plugin's table is long enough to hold `field` and fills it in.
#define WASINN_PLUGIN_HAS(api, field) \
  ((api).struct_size >= offsetof(wasinn_backend_api, field) + sizeof((api).field) && (api).field != nullptr)

namespace wasinn {

// Collects the detail a plugin reports and turns a plugin status into an Error.
class PluginDiag {
 public:
  PluginDiag();
  PluginDiag(const PluginDiag&) = delete;
  PluginDiag& operator=(const PluginDiag&) = delete;
  wasinn_diag* get() { return &diag_; }
  // Error for a failed call; `what` says which operation failed, for when the plugin gave no detail.
  Error to_error(int status, std::string_view what) const;

 private:
  wasinn_diag diag_;
  std::string detail_;
};

Errc errc_from_plugin_status(int status);

// "plugin [ID] BACKEND.FUNCTION -> STATUS in MS" (request_trace.h).
void trace_plugin_call(std::string_view backend, std::string_view function, int status,
                       std::chrono::steady_clock::duration took);

// Calls `call` (a plugin table function's call, returning its status), with a trace line for it
// when the log is at trace.
template <class Call>
int call_plugin(std::string_view backend, std::string_view function, Call&& call) {
  if (!tracing()) return call();
  const auto start = std::chrono::steady_clock::now();
  const int status = call();
  trace_plugin_call(backend, function, status, std::chrono::steady_clock::now() - start);
  return status;
}

}  // namespace wasinn
