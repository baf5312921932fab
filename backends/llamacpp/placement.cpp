// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "placement.h"

#include "wasinn/plugin_sdk/load_request.hpp"

namespace wasinn::llamacpp {

Error place(const DeviceSet& devices, int32_t target, const LlamaOptions& options, Placement& out) {
  out = {};
  if (target == WASINN_TARGET_TPU)
    return sdk::unsupported("target tpu: llama.cpp has no TPU backend; load with target gpu, cpu or auto");
  // auto with n-gpu-layers 0 asks for nothing on a GPU: the CPU, and the label says so. Neither
  // asks for the GPU devices, whose first lookup loads the GPU modules.
  if (target == WASINN_TARGET_CPU || (target == WASINN_TARGET_AUTO && options.n_gpu_layers == 0)) return {};
  const auto& gpus = devices.gpus();
  if (target == WASINN_TARGET_AUTO && gpus.empty()) return {};
  if (gpus.empty())
    return sdk::unsupported("target gpu: " + devices.gpu_unavailable() +
                            "; load with target cpu or auto to run on the CPU");
  if (options.n_gpu_layers == 0)
    return sdk::invalid("target gpu with n-gpu-layers 0 would run every layer on the CPU; load with target cpu");
  if (options.main_gpu >= static_cast<int64_t>(gpus.size())) {
    std::string names;
    for (size_t i = 0; i < gpus.size(); ++i) names += (i ? ", " : "") + std::to_string(i) + ": " + gpus[i].label;
    return sdk::invalid("main-gpu " + std::to_string(options.main_gpu) + " names no GPU device; this process has " +
                        names);
  }
  // main-gpu picks one device; without it llama.cpp splits the layers across the devices of the
  // first API (CUDA before Vulkan): one GPU seen through both would otherwise take both halves.
  out.devices.clear();
  out.label = "gpu: ";
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (options.main_gpu >= 0 && static_cast<int64_t>(i) != options.main_gpu) continue;
    if (options.main_gpu < 0 && gpus[i].api != gpus.front().api) continue;
    out.label += (out.devices.empty() ? "" : ", ") + gpus[i].label;
    out.devices.push_back(gpus[i].dev);
  }
  out.devices.push_back(nullptr);
  out.n_gpu_layers = static_cast<int32_t>(options.n_gpu_layers);
  if (out.n_gpu_layers >= 0) out.label += ", " + std::to_string(out.n_gpu_layers) + " layers offloaded";
  return {};
}

}  // namespace wasinn::llamacpp
