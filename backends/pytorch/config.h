// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The backend's JSON configuration (--backend-config pytorch=JSON) and the process-wide
// libtorch thread settings it controls.
#pragma once

#include <optional>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::pytorch {

using sdk::Error;

// Keys (all optional; unknown keys are ignored so one config can serve several backends):
//   "num_threads":      libtorch's intra-op threads (at::set_num_threads)
//   "interop_threads":  libtorch's inter-op pool (at::set_num_interop_threads)
// Each an integer from 0 (libtorch's default: no call) to max_config_threads(), the SDK's
// rule; unset, libtorch's default, or the CPUs this process may use where a cgroup quota or
// affinity allows fewer than the machine has (sdk/thread_defaults.hpp). Both are process-wide
// in libtorch, not per graph: they also govern any other libtorch user in the process, and the
// inter-op pool can be sized only once, before its first use.
struct BackendConfig {
  std::optional<int> num_threads;
  std::optional<int> interop_threads;
};

// Parses text ("" means "no config"). Malformed JSON, a non-object, or a key of the wrong
// type or range is INVALID_ARGUMENT naming the key.
Error parse_backend_config(std::string_view text, BackendConfig& out);

// Applies the thread settings to libtorch.
Error apply_backend_config(const BackendConfig& config);

// A graph's config (load_by_name_with_config): must be a JSON object if given. libtorch has no
// per-graph settings, so its keys are ignored, except the process-wide thread keys, which are
// refused rather than silently changing every other graph.
Error check_graph_config(std::string_view text);

}  // namespace wasinn::pytorch
