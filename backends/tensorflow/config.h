// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The JSON configuration of the backend (backend_create: the session's thread pools) and of one
// graph (the load request's config: which signature, tags, or GraphDef ends). Unknown keys are
// refused, naming the known ones, so a typo is never silently ignored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::tensorflow {

using sdk::Error;

// {"intra_op_threads": N, "inter_op_threads": N}, both optional; 0: TensorFlow's default;
// absent: TensorFlow's, or the CPUs this process may use where a cgroup quota or affinity allows
// fewer than the machine has. Bounded by the SDK's thread limit (4 per hardware thread).
struct BackendConfig {
  int intra_op_threads = 0;
  int inter_op_threads = 0;
};
Error parse_backend_config(std::string_view text, BackendConfig& out);

// The serialized ConfigProto TF_SetConfig takes for these settings; empty for TF's defaults.
std::string session_config_proto(const BackendConfig& config);

// {"signature": "KEY", "tags": [...]} for a SavedModel; {"inputs": [...], "outputs": [...]}
// to name a GraphDef's ends ("op" or "op:1"). All optional.
struct GraphConfig {
  std::string signature = "serving_default";
  std::vector<std::string> tags = {"serve"};
  std::vector<std::string> inputs, outputs;
};
Error parse_graph_config(std::string_view text, GraphConfig& out);

}  // namespace wasinn::tensorflow
