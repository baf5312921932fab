// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The JSON configuration of the backend (backend_create) and of one graph (the load request's
// config), both mapping onto OrtSessionOptions.
#pragma once

#include <onnxruntime_c_api.h>

#include <cstddef>
#include <optional>
#include <string_view>

#include "ort_api.h"

namespace wasinn::onnxruntime {

// Keys (all optional, unknown keys ignored so one config can serve several backends):
//   "intra_op_threads":          int >= 0, 0 = ORT's default (one per physical core); unset:
//                                ORT's default, or the CPUs this process may use where a cgroup
//                                quota or affinity allows fewer than the machine has
//   "inter_op_threads":          int >= 0, 0 = ORT's default
//   "graph_optimization_level":  "disable" | "basic" | "extended" | "all"
//   "fallback":                  "cpu" | "none" (default): what target gpu does when CUDA cannot
//                                run it; "none" refuses the load, "cpu" runs it on the CPU
// An unset field leaves the level below it in charge: graph config, then backend config, then
// ORT's defaults (optimization "all").
struct SessionConfig {
  std::optional<int> intra_op_threads;
  std::optional<int> inter_op_threads;
  std::optional<GraphOptimizationLevel> optimization_level;
  std::optional<bool> fallback_cpu;

  // Fields set in `over` replace this config's.
  SessionConfig merged_with(const SessionConfig& over) const;
};

// Parses text ("" means "no config"). `source` names the config in details, e.g. "backend
// config". Malformed JSON, a non-object, or a key of the wrong type or range is
// INVALID_ARGUMENT naming the key.
Error parse_session_config(std::string_view text, std::string_view source, SessionConfig& out);

// Applies cfg to options.
Error apply_session_config(const SessionConfig& cfg, OrtSessionOptions* options);

}  // namespace wasinn::onnxruntime
