// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The JSON configuration of the backend (backend_create: the external delegates the host offers)
// and of one graph (the load request's config: which signature runs, which delegate it uses).
// Unknown keys are refused, naming the known ones, so a typo is never silently ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/backend_plugin.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::tensorflowlite {

using sdk::Error;

// One external delegate library the host configured:
//   {"name": "npu", "path": "/usr/lib/libvx_delegate.so", "target": "tpu",
//    "options": {"cache_file_path": "/tmp/vx.cache"}, "fallback": "cpu"}
// Only the host names a library; a guest picks a delegate by `name`.
struct DelegateSpec {
  std::string name;  // default: the file name without "lib" and ".so" ("vx_delegate")
  std::string path;
  int32_t target = WASINN_TARGET_TPU;                        // the wasinn target it serves: tpu (default), gpu or cpu
  std::vector<std::pair<std::string, std::string>> options;  // numbers and booleans as text
  bool fallback_cpu = false;  // a delegate that cannot run the model leaves it to the CPU
};

// "delegate \"npu\" (/usr/lib/libvx_delegate.so)", how details name it.
std::string label(const DelegateSpec& spec);

struct BackendConfig {
  std::vector<DelegateSpec> delegates;
};
Error parse_backend_config(std::string_view text, BackendConfig& out);

// {"signature": "KEY", "delegate": "NAME" | "none", "fallback": "cpu" | "none"}, all optional:
// "" runs the model's first signature; no delegate key lets the target choose (backend.h).
struct GraphConfig {
  std::string signature;
  std::optional<std::string> delegate;
  std::optional<bool> fallback_cpu;
};
Error parse_graph_config(std::string_view text, GraphConfig& out);

}  // namespace wasinn::tensorflowlite
