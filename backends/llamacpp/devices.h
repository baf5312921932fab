// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The devices llama.cpp can run on in this process: ggml's backend modules (GGML_BACKEND_DL)
// loaded once from the directories CMake names (WASINN_GGML_MODULE_DIRS), the CPU and every GPU
// device they registered, and, when there is no GPU, why not, in words an operator can act on.
// The CPU module loads at backend create; the GPU modules only when first needed (a gpu or auto
// load, the device report), because a Vulkan instance loads the driver (lavapipe brings LLVM:
// +60 MB and +50 ms for a process that only ever runs on the CPU).
#pragma once

#include <ggml-backend.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::llamacpp {

struct GpuDevice {
  ggml_backend_dev_t dev;
  std::string label;  // "Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits))"
  std::string api;    // its ggml backend: "CUDA", "Vulkan"
};

class DeviceSet {
 public:
  // Loads the CPU module on the first call (later calls return the same set); throws
  // std::runtime_error when it is missing, as no model could load at all.
  static const DeviceSet& get();

  // These three load the GPU modules on their first call, once per process.
  // The device report: "CPU (<model>)" [CPU], then each GPU, e.g.
  // "Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits))" [Vulkan], with its memory.
  const std::vector<sdk::Device>& found() const;
  const std::vector<GpuDevice>& gpus() const;
  // Why target gpu cannot run ("no GPU device: ..."), or "" when a GPU device is there.
  const std::string& gpu_unavailable() const;

  // Held around llama.cpp calls that read ggml's device registry (loading a model, making a
  // context), so a GPU module is never added to it meanwhile.
  std::shared_lock<std::shared_mutex> registry_reader() const { return std::shared_lock(registry_); }

 private:
  DeviceSet();
  void find_gpus() const;
  std::vector<std::string> dirs_;
  sdk::Device cpu_;
  mutable std::once_flag gpus_once_;
  mutable std::shared_mutex registry_;
  mutable std::vector<sdk::Device> found_;
  mutable std::vector<GpuDevice> gpus_;
  mutable std::string gpu_unavailable_;
};

}  // namespace wasinn::llamacpp
