// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide TensorFlow backend: the session settings every graph's session gets, from
// backend_create's config. Creating the first one loads TensorFlow itself (tf_api.h).
// Immutable after create, so graphs on any thread share it without locking.
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <string_view>

#include "plugin_common/cpu_only_devices.hpp"
#include "tf_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflow {

class TfGraph;
class TfContext;

// The one device is the CPU: the CPU-only build of TensorFlow (PyPI tensorflow-cpu).
class TfBackend : public plugin_common::CpuOnlyDevices {
 public:
  // The version the plugin was built with (TensorFlow is loaded only by create).
  WASINN_SDK_BACKEND(TfBackend, TfGraph, TfContext, "tensorflow")
  TfBackend()
      : CpuOnlyDevices("CPU (tensorflow-cpu)",
                       "this TensorFlow is the CPU-only build (PyPI tensorflow-cpu), which has no GPU or TPU "
                       "kernels; use target cpu or auto") {}

  // A serialized ConfigProto (thread pool sizes) for TF_SetConfig; empty for TF's defaults.
  const std::string& session_config() const { return session_config_; }

 private:
  std::string session_config_;
};

}  // namespace wasinn::tensorflow
