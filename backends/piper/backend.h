// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide Piper backend: ONNX Runtime's environment (its log routed to the host's) and
// the operator's backend config. Immutable after create, so graphs on any thread share it.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <memory>
#include <string_view>
#include <vector>

#include "options.h"
#include "plugin_common/cpu_only_devices.hpp"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::piper {

class PiperGraph;
class PiperContext;

// Piper's voices run on the CPU here (ONNX Runtime's CPU provider, as WasmEdge's plugin).
class PiperBackend : public plugin_common::CpuOnlyDevices {
 public:
  WASINN_SDK_BACKEND(PiperBackend, PiperGraph, PiperContext, "piper")
  PiperBackend()
      : CpuOnlyDevices("CPU (ONNX Runtime)",
                       "the piper backend runs voices on ONNX Runtime's CPU provider only; load with target cpu or "
                       "auto") {}

  const BackendConfig& config() const { return config_; }
  Ort::Env& env() { return *env_; }

 private:
  BackendConfig config_;
  std::unique_ptr<Ort::Env> env_;
};

}  // namespace wasinn::piper
