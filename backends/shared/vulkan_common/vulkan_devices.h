// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Vulkan devices this machine offers, asked of the Vulkan loader itself. The frameworks that
// reach GPUs through Vulkan say little when they find none (ggml-vulkan: "No devices found";
// LiteRT's WebGPU accelerator, Dawn: "No adapters found"): the plugins of llama.cpp and
// TensorFlow Lite list the devices here to report them and to say why target gpu cannot run.
// Compiled into each plugin that uses it, as backends/shared/ggml_common is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasinn::vulkan {

struct VulkanDevice {
  std::string name;           // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string driver;         // "Mesa 22.3.6 (LLVM 15.0.6)", when the driver says
  uint64_t memory_bytes = 0;  // the largest device-local heap
  bool software = false;      // a CPU device (lavapipe, SwiftShader): Dawn prefers any other
  // The features WebGPU's Vulkan backend (Dawn) requires of an adapter that this device lacks,
  // e.g. "shaderSampledImageArrayDynamicIndexing"; empty when Dawn can use it.
  std::vector<std::string> missing_for_dawn;
};

struct VulkanDevices {
  std::vector<VulkanDevice> devices;
  std::string error;  // why there is no device (no Vulkan loader, no driver, none listed), else ""
};

// Asks the Vulkan loader (libvulkan.so.1, opened at run time so that the plugin needs no Vulkan
// at all on a machine without it). Honours VK_ICD_FILENAMES / VK_DRIVER_FILES, and names them in
// `error` when they are set, as they are then the likely cause.
VulkanDevices find_vulkan_devices();

}  // namespace wasinn::vulkan
