// The process-wide backend object: one LiteRT environment (which registers the accelerators it
// can load), the hardware those accelerators cover, and the lock that serializes compilation.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tfl_error.h"
#include "tfl_handles.h"

struct wasinn_backend {
  wasinn_tfl::EnvironmentPtr env;
  // Union of what the registered accelerators support (kLiteRtHwAccelerator* bits) and their
  // names, for the detail of an unsupported target. Fixed after creation.
  LiteRtHwAcceleratorSet hardware = 0;
  std::string accelerator_names;
  // LiteRT does not document LiteRtCreateCompiledModel as thread-safe on a shared environment
  // and model, and it runs once per context, off the hot path: one at a time is cheap safety.
  std::mutex compile_mu;
};

namespace wasinn_tfl {

Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out);

// The accelerators LiteRT should use for a wasinn target: cpu -> CPU, gpu -> GPU, tpu -> NPU,
// auto -> everything registered. UNSUPPORTED_OPERATION, with the reason, when the target's
// hardware has no accelerator here.
Error accelerators_for(const wasinn_backend &backend, int32_t target,
                       LiteRtHwAcceleratorSet &out);

}  // namespace wasinn_tfl
