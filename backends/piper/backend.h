// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide Piper backend: ONNX Runtime's environment (its log routed to the host's) and
// the operator's backend config. Immutable after create, so graphs on any thread share it.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <memory>
#include <string_view>
#include <vector>

#include "options.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::piper {

class PiperGraph;
class PiperContext;

class PiperBackend {
 public:
  WASINN_SDK_BACKEND(PiperBackend, PiperGraph, PiperContext, "piper")

  const BackendConfig& config() const { return config_; }
  Ort::Env& env() { return *env_; }
  const std::vector<sdk::Device>& devices() const { return devices_; }
  // Piper's voices run on the CPU here (ONNX Runtime's CPU provider, as WasmEdge's plugin).
  static const char* target_unavailable(int32_t target) {
    if (target != WASINN_TARGET_GPU && target != WASINN_TARGET_TPU) return nullptr;
    return "the piper backend runs voices on ONNX Runtime's CPU provider only; load with target cpu or auto";
  }

 private:
  BackendConfig config_;
  std::unique_ptr<Ort::Env> env_;
  std::vector<sdk::Device> devices_{{"CPU", "CPU (ONNX Runtime)", 0, WASINN_TARGET_CPU}};
};

}  // namespace wasinn::piper
