// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON config -> OrtSessionOptions. nlohmann::json is used in its non-throwing parse mode so a
// bad config is a status, never an exception.
#include "config.h"

#include <nlohmann/json.hpp>

#include <string>

#include "plugin_common/layered_config.hpp"
#include "wasinn/plugin_sdk/json_config.hpp"
#include "wasinn/plugin_sdk/thread_defaults.hpp"

namespace wasinn::onnxruntime {

SessionConfig SessionConfig::merged_with(const SessionConfig& over) const {
  return plugin_common::layered(*this, over, &SessionConfig::intra_op_threads, &SessionConfig::inter_op_threads,
                                &SessionConfig::optimization_level, &SessionConfig::fallback_cpu);
}

Error parse_session_config(std::string_view text, std::string_view source, SessionConfig& out) {
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, source, j)) return e;
  if (Error e = sdk::read_thread_count(j, "intra_op_threads", source, out.intra_op_threads)) return e;
  if (Error e = sdk::read_thread_count(j, "inter_op_threads", source, out.inter_op_threads)) return e;
  if (Error e = sdk::read_choice<bool>(j, "fallback", source, {{"cpu", true}, {"none", false}}, out.fallback_cpu))
    return e;
  return sdk::read_choice<GraphOptimizationLevel>(j, "graph_optimization_level", source,
                                                  {{"disable", ORT_DISABLE_ALL},
                                                   {"basic", ORT_ENABLE_BASIC},
                                                   {"extended", ORT_ENABLE_EXTENDED},
                                                   {"all", ORT_ENABLE_ALL}},
                                                  out.optimization_level);
}

Error apply_session_config(const SessionConfig& cfg, OrtSessionOptions* options) {
  const OrtApi* api = ort_api();
  // 0 is ORT's own "choose for me" (a thread per physical core of the machine); unset, the
  // CPUs this process may use where a quota or affinity limits it (sdk/thread_defaults.hpp).
  const int intra = cfg.intra_op_threads ? *cfg.intra_op_threads : sdk::default_thread_count("intra_op_threads");
  if (intra)
    if (Error e = take_status(api->SetIntraOpNumThreads(options, intra), "setting intra_op_threads")) return e;
  if (cfg.inter_op_threads)
    if (Error e = take_status(api->SetInterOpNumThreads(options, *cfg.inter_op_threads), "setting inter_op_threads"))
      return e;
  return take_status(api->SetSessionGraphOptimizationLevel(options, cfg.optimization_level.value_or(ORT_ENABLE_ALL)),
                     "setting graph_optimization_level");
}

}  // namespace wasinn::onnxruntime
