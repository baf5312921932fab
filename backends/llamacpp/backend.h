// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide llama.cpp backend: initialises llama.cpp once, loads ggml's backend modules
// and finds the devices (devices.h), routes its log to the host's logger, and keeps the
// operator's backend config. Immutable after create, so graphs on any thread share it without
// locking.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "config.h"
#include "devices.h"
#include "wasinn/plugin_sdk.hpp"

// Set by CMake from .deps/llamacpp-dl/share/llamacpp/build-info.json.
#ifndef WASINN_LLAMA_BUILD_NUMBER
#define WASINN_LLAMA_BUILD_NUMBER 0
#endif
#ifndef WASINN_LLAMA_COMMIT
#define WASINN_LLAMA_COMMIT "unknown"
#endif

namespace wasinn::llamacpp {

class LlamaGraph;
class LlamaContext;

class LlamaBackend {
 public:
  WASINN_SDK_BACKEND(LlamaBackend, LlamaGraph, LlamaContext, "llamacpp")

  const BackendConfig& config() const { return config_; }
  const DeviceSet& device_set() const { return *devices_; }
  // The device report (the CPU, then each GPU) and why a target cannot run (nullptr: it can);
  // the first call of either loads the GPU modules (devices.h).
  const std::vector<sdk::Device>& devices() const { return devices_->found(); }
  const char* target_unavailable(int32_t target) const;

 private:
  BackendConfig config_;
  const DeviceSet* devices_ = nullptr;  // process-wide, never freed
};

// Logs config keys that were skipped, one warning each; `where` names the config.
void log_ignored(const std::vector<IgnoredKey>& ignored, const char* where);

}  // namespace wasinn::llamacpp
