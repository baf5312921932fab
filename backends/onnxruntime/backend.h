// The process-wide ONNX Runtime backend: one OrtEnv (its logger feeds the host's), the CPU
// memory description every input tensor uses, and the default session config from
// backend_create. Immutable after create, so graphs on any thread share it without locking.
#pragma once

#include <memory>
#include <string_view>

#include "config.h"
#include "ort_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::onnxruntime {

class OrtGraph;
class OrtContext;

class OrtBackend {
 public:
  WASINN_SDK_BACKEND(OrtBackend, OrtGraph, OrtContext, "onnxruntime")

  OrtEnv *env() const { return env_.get(); }
  const OrtMemoryInfo *cpu_memory() const { return cpu_memory_.get(); }
  const SessionConfig &defaults() const { return defaults_; }

 private:
  EnvPtr env_;
  MemoryInfoPtr cpu_memory_;
  SessionConfig defaults_;
};

}  // namespace wasinn::onnxruntime
