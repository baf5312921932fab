// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "placement.h"

#include <onnxruntime_session_options_config_keys.h>

#include <cstring>
#include <map>

#include "backend.h"
#include "wasinn/plugin_sdk/load_request.hpp"

namespace wasinn::onnxruntime {
namespace {

constexpr const char* kFallbackHint = " (a load config with \"fallback\": \"cpu\" runs it on the CPU instead)";

}  // namespace

Error plan_placement(const OrtBackend& backend, int32_t target, bool fallback_cpu, Placement& out) {
  out = {};
  const std::string& why_not = backend.cuda().unavailable();
  switch (target) {
    case WASINN_TARGET_CPU: return {};  // ORT's CPU provider is its default: nothing to append
    case WASINN_TARGET_AUTO: out.cuda = why_not.empty(); return {};
    case WASINN_TARGET_GPU:
      if (why_not.empty()) {
        out.cuda = true;
      } else if (fallback_cpu) {
        sdk::log_own(WASINN_LOG_WARN, "target gpu runs on the CPU, as its config's \"fallback\" asks: " + why_not);
      } else {
        // Never a silent CPU run: a guest asking for a GPU learns it has none.
        return sdk::unsupported("target gpu is not available: " + why_not + kFallbackHint);
      }
      return {};
    case WASINN_TARGET_TPU:
      return sdk::unsupported("target tpu is not available: ONNX Runtime has no TPU execution provider here");
    default: return sdk::invalid("unknown execution target " + std::to_string(target));
  }
}

Error apply_placement(const OrtBackend& backend, const Placement& placement, OrtSessionOptions* options) {
  if (!placement.cuda) return {};
  if (Error e =
          take_status(ort_api()->AddSessionConfigEntry(options, kOrtSessionOptionsRecordEpGraphAssignmentInfo, "1"),
                      "asking ORT to record its node assignment"))
    return e;
  return backend.cuda().append(backend.env(), options);
}

Error check_placement(const OrtBackend& backend, int32_t target, bool fallback_cpu, const OrtSession* session,
                      Placement& placement) {
  if (!placement.cuda) return {};
  const OrtApi* api = ort_api();
  const OrtEpAssignedSubgraph* const* subgraphs = nullptr;
  size_t n = 0;
  if (Error e =
          take_status(api->Session_GetEpGraphAssignmentInfo(session, &subgraphs, &n), "reading ORT's node assignment"))
    return e;
  std::map<std::string, size_t> nodes;  // provider -> node count, in name order
  for (size_t i = 0; i < n; ++i) {
    const char* ep = nullptr;
    const OrtEpAssignedNode* const* list = nullptr;
    size_t count = 0;
    if (Error e = take_status(api->EpAssignedSubgraph_GetEpName(subgraphs[i], &ep), "reading ORT's node assignment"))
      return e;
    if (Error e =
            take_status(api->EpAssignedSubgraph_GetNodes(subgraphs[i], &list, &count), "reading ORT's node assignment"))
      return e;
    nodes[ep ? ep : "?"] += count;
  }
  for (const auto& [ep, count] : nodes)
    placement.description += (placement.description.empty() ? "" : ", ") + ep + ": " + std::to_string(count) +
                             (count == 1 ? " node" : " nodes");
  const auto on_cuda = nodes.find(kCudaEpName);
  if (on_cuda != nodes.end() && on_cuda->second > 0) {
    const auto& devices = backend.cuda().devices();
    placement.device = "gpu: CUDA0" + (devices.empty() ? std::string() : " " + devices[0].name);
    return {};
  }
  // CUDA is there but took nothing: the session runs wholly on ORT's CPU provider.
  const std::string why = "ONNX Runtime's CUDA provider took none of the model's nodes (" +
                          (placement.description.empty() ? std::string("no nodes") : placement.description) + ")";
  if (target == WASINN_TARGET_GPU && !fallback_cpu)
    return sdk::unsupported("target gpu is not available: " + why + kFallbackHint);
  if (target == WASINN_TARGET_GPU)
    sdk::log_own(WASINN_LOG_WARN, "target gpu runs on the CPU, as its config's \"fallback\" asks: " + why);
  placement.device = "cpu";
  return {};
}

}  // namespace wasinn::onnxruntime
