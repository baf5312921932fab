// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide PyTorch backend: the config it was created with. libtorch itself has no
// environment object to own; its thread settings and log hooks are process-wide and set in
// create. Immutable after create, so graphs on any thread share it without locking.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "config.h"
#include "cuda_devices.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::pytorch {

class TorchGraph;
class TorchContext;

class TorchBackend {
 public:
  WASINN_SDK_BACKEND(TorchBackend, TorchGraph, TorchContext, "pytorch")

  const BackendConfig& config() const { return config_; }
  const CudaDevices& cuda() const { return cuda_; }
  // Why target gpu/tpu cannot run here, or nullptr (cpu and auto always can).
  const char* target_unavailable(int32_t target) const;
  // The CPU and each CUDA device, found at create.
  const std::vector<sdk::Device>& devices() const { return devices_; }

 private:
  BackendConfig config_;
  CudaDevices cuda_;  // found once, at create
  std::vector<sdk::Device> devices_;
};

}  // namespace wasinn::pytorch
