// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared by the external-delegate tests: the test delegate's path and counters, backend configs
// that offer it, and one call that runs a model through the plugin table on a backend.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {

inline const std::string kTestDelegate = WASINN_TEST_DELEGATE;  // libwasinn_test_delegate.so
inline const std::string kNotADelegate = WASINN_NOT_A_DELEGATE;

struct DelegateStats {
  uint64_t invocations = 0;  // node runs in the delegate's kernels, in this process
  uint64_t kernel_ns = 0;
  uint64_t live = 0;  // delegates created and not yet destroyed
};

// The counters of the copy of the test delegate the plugin loaded (dlopen of the same file
// returns the same library).
inline DelegateStats delegate_stats() {
  using StatsFn = void (*)(uint64_t*, uint64_t*, uint64_t*);
  static StatsFn fn = [] {
    void* h = dlopen(kTestDelegate.c_str(), RTLD_NOW | RTLD_LOCAL);
    return h ? reinterpret_cast<StatsFn>(dlsym(h, "wasinn_test_delegate_stats")) : nullptr;
  }();
  DelegateStats s;
  if (fn) fn(&s.invocations, &s.kernel_ns, &s.live);
  return s;
}

// One delegate entry: {"name": NAME, "path": PATH, "target": TARGET, "options": {OPTIONS}EXTRA}.
// OPTIONS is the inside of a JSON object ("\"ops\": \"add\""); EXTRA more keys (", \"fallback\": \"cpu\"").
inline std::string delegate_entry(const std::string& name, const std::string& path, const std::string& target,
                                  const std::string& options = "", const std::string& extra = "") {
  return "{\"name\": \"" + name + "\", \"path\": \"" + path + "\", \"target\": \"" + target + "\", \"options\": {" +
         options + "}" + extra + "}";
}

inline std::string delegates_config(const std::vector<std::string>& entries) {
  std::string list;
  for (const auto& e : entries) list += (list.empty() ? "" : ", ") + e;
  return "{\"delegates\": [" + list + "]}";
}

// The usual: the test delegate as the NPU ("tpu"), named "test".
inline std::string test_delegate_config(const std::string& options = "", const std::string& extra = "",
                                        const std::string& target = "tpu") {
  return delegates_config({delegate_entry("test", kTestDelegate, target, options, extra)});
}

// set_input(0) + compute + get_output(0) of `type`, on a context of `g`. Empty on failure, with
// the status and detail of the failing call in `status` / `d`.
inline std::vector<uint8_t> run_once(const wasinn_backend_api& api, wasinn_context* c, int32_t type,
                                     const std::vector<uint32_t>& dims, const std::vector<uint8_t>& x, int32_t out_type,
                                     int& status, Diag& d) {
  status = set_input(api, c, by_index(0), type, dims, x, d);
  if (status == WASINN_OK) status = api.compute(c, &d);
  if (status != WASINN_OK) return {};
  return output_bytes(api, c, by_index(0), out_type);
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace wasinn_test
