// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a load runs: the load's target and the config's n-gpu-layers and main-gpu against the
// devices this process has (devices.h). `gpu` with no GPU device is refused, never run on the
// CPU; `cpu` gets no GPU device at all (llama.cpp then creates nothing on one, and the GPU
// modules are not even loaded for it); `auto` takes a GPU when there is one.
#pragma once

#include <ggml-backend.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "devices.h"

namespace wasinn::llamacpp {

struct Placement {
  // For llama_model_params.devices: the GPU devices used, then nullptr (only nullptr: the CPU).
  std::vector<ggml_backend_dev_t> devices{nullptr};
  int32_t n_gpu_layers = 0;  // llama.cpp's: negative means all
  // The graph's "device" property and the log's word for it: "cpu", or "gpu: Vulkan0 (...)".
  std::string label = "cpu";
};

// UNSUPPORTED_OPERATION for target gpu without a GPU device (with DeviceSet's reason) and for
// tpu; INVALID_ARGUMENT for a main-gpu that names no device, or gpu with n-gpu-layers 0.
Error place(const DeviceSet& devices, int32_t target, const LlamaOptions& options, Placement& out);

}  // namespace wasinn::llamacpp
