// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide whisper.cpp backend: routes whisper.cpp's (and its ggml's) log to the host's
// logger, and keeps the operator's backend config. Immutable after create, so graphs on any
// thread share it without locking.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "options.h"
#include "plugin_common/cpu_only_devices.hpp"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::whisper {

class WhisperGraph;
class WhisperContext;

// The one device is the CPU: scripts/deps/whisper.sh builds ggml's CPU backend alone.
class WhisperBackend : public plugin_common::CpuOnlyDevices {
 public:
  WASINN_SDK_BACKEND(WhisperBackend, WhisperGraph, WhisperContext, "whisper")
  WhisperBackend()
      : CpuOnlyDevices("CPU (ggml)",
                       "this whisper.cpp build runs on the CPU only (built with ggml's CPU backend alone, "
                       "without its Vulkan or CUDA backends); load with target cpu or auto") {}

  const BackendConfig& config() const { return config_; }

 private:
  BackendConfig config_;
};

}  // namespace wasinn::whisper
