// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide whisper.cpp backend: routes whisper.cpp's (and its ggml's) log to the host's
// logger, and keeps the operator's backend config. Immutable after create, so graphs on any
// thread share it without locking.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "options.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::whisper {

class WhisperGraph;
class WhisperContext;

class WhisperBackend {
 public:
  WASINN_SDK_BACKEND(WhisperBackend, WhisperGraph, WhisperContext, "whisper")

  const BackendConfig& config() const { return config_; }
  // The one device: the CPU.
  const std::vector<sdk::Device>& devices() const { return devices_; }
  // Why target gpu/tpu cannot run here (always: scripts/deps/whisper.sh builds ggml's CPU
  // backend alone), or nullptr.
  static const char* target_unavailable(int32_t target) {
    if (target != WASINN_TARGET_GPU && target != WASINN_TARGET_TPU) return nullptr;
    return "this whisper.cpp build runs on the CPU only (built with ggml's CPU backend alone, "
           "without its Vulkan or CUDA backends); load with target cpu or auto";
  }

 private:
  BackendConfig config_;
  std::vector<sdk::Device> devices_{{"CPU", "CPU (ggml)", 0, WASINN_TARGET_CPU}};
};

}  // namespace wasinn::whisper
