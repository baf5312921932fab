// The process-wide TensorFlow Lite backend: one LiteRT environment (which registers the
// accelerators it can load), the hardware those accelerators cover, and the lock that serializes
// compilation. Creating it routes LiteRT's log lines to the host (litert_log.h).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "handles.h"
#include "litert_status.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflowlite {

class TfliteGraph;
class TfliteContext;

class TfliteBackend {
 public:
  WASINN_SDK_BACKEND(TfliteBackend, TfliteGraph, TfliteContext, "tensorflowlite")

  // The accelerators LiteRT should use for a wasinn target: cpu -> CPU, gpu -> GPU, tpu -> NPU,
  // auto -> everything registered. UNSUPPORTED_OPERATION, with the reason, when the target's
  // hardware has no accelerator here.
  Error accelerators_for(int32_t target, LiteRtHwAcceleratorSet &out) const;

  LiteRtEnvironment env() const { return env_.get(); }
  // LiteRT does not document LiteRtCreateCompiledModel as thread-safe on a shared environment
  // and model, and it runs once per context, off the hot path: one at a time is cheap safety.
  std::mutex &compile_mutex() { return compile_mu_; }

 private:
  EnvironmentPtr env_;
  // Union of what the registered accelerators support (kLiteRtHwAccelerator* bits) and their
  // names, for the detail of an unsupported target. Fixed after creation.
  LiteRtHwAcceleratorSet hardware_ = 0;
  std::string accelerator_names_;
  std::mutex compile_mu_;
};

}  // namespace wasinn::tensorflowlite
