// The process-wide backend object: one OrtEnv, the CPU memory description every input tensor
// uses, and the default session config from backend_create.
#pragma once

#include <memory>

#include "ort_api.h"
#include "ort_config.h"

struct wasinn_backend {
  wasinn_ort::EnvPtr env;
  // Describes where context input buffers live (plain host memory). Immutable after creation,
  // so all graphs and contexts share it without locking.
  wasinn_ort::MemoryInfoPtr cpu_memory;
  wasinn_ort::SessionConfig defaults;
};

namespace wasinn_ort {

Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out);

}  // namespace wasinn_ort
