// The devices llama.cpp can run on in this process: ggml's backend modules (GGML_BACKEND_DL)
// loaded once from the directories CMake names (WASINN_GGML_MODULE_DIRS), the CPU and every GPU
// device they registered, and, when there is no GPU, why not, in words an operator can act on.
#pragma once

#include <ggml-backend.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wasinn/backend_plugin.h"

namespace wasinn::llamacpp {

// One device as the backend reports it (the host's wasinn_device, with owned strings).
struct FoundDevice {
  std::string name;  // "CPU", "Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits))"
  std::string api;   // "CPU", "Vulkan", "CUDA"
  uint64_t memory_bytes = 0;
  int32_t target = WASINN_TARGET_CPU;
};

struct GpuDevice {
  ggml_backend_dev_t dev;
  std::string label;  // "Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits))"
};

class DeviceSet {
 public:
  // Loads the modules on the first call (later calls return the same set); throws
  // std::runtime_error when ggml's CPU module is missing, as no model could load at all.
  static const DeviceSet &get();

  const std::vector<FoundDevice> &found() const { return found_; }
  const std::vector<GpuDevice> &gpus() const { return gpus_; }
  // Why target gpu cannot run ("no GPU device: ..."), or "" when a GPU device is there.
  const std::string &gpu_unavailable() const { return gpu_unavailable_; }

 private:
  DeviceSet();
  std::vector<FoundDevice> found_;
  std::vector<GpuDevice> gpus_;
  std::string gpu_unavailable_;
};

}  // namespace wasinn::llamacpp
