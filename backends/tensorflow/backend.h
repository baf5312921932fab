// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide TensorFlow backend: the session settings every graph's session gets, from
// backend_create's config. Creating the first one loads TensorFlow itself (tf_api.h).
// Immutable after create, so graphs on any thread share it without locking.
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <string_view>

#include "tf_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflow {

class TfGraph;
class TfContext;

class TfBackend {
 public:
  // The version the plugin was built with (TensorFlow is loaded only by create).
  WASINN_SDK_BACKEND(TfBackend, TfGraph, TfContext, "tensorflow")

  // A serialized ConfigProto (thread pool sizes) for TF_SetConfig; empty for TF's defaults.
  const std::string& session_config() const { return session_config_; }
  // The one device: the CPU.
  const std::vector<sdk::Device>& devices() const { return devices_; }
  // Why target gpu/tpu cannot run here (always: the CPU-only build), or nullptr.
  static const char* target_unavailable(int32_t target) {
    if (target != WASINN_TARGET_GPU && target != WASINN_TARGET_TPU) return nullptr;
    return "this TensorFlow is the CPU-only build (PyPI tensorflow-cpu), which has no GPU or TPU "
           "kernels; use target cpu or auto";
  }

 private:
  std::string session_config_;
  std::vector<sdk::Device> devices_{{"CPU", "CPU (tensorflow-cpu)", 0, WASINN_TARGET_CPU}};
};

}  // namespace wasinn::tensorflow
