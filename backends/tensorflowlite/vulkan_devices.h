// The Vulkan devices this machine offers, as LiteRT's GPU accelerator would find them: its
// libLiteRtWebGpuAccelerator.so runs Dawn (WebGPU), which reaches GPUs on Linux through Vulkan.
// Listed once at backend creation for `wasinn backends --check` and for a clear refusal of
// target gpu, instead of a failed compilation with Dawn's "No adapters found".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasinn::tensorflowlite {

struct VulkanDevice {
  std::string name;        // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string driver;      // "Mesa 22.3.6 (LLVM 15.0.6)", when the driver says
  uint64_t memory_bytes = 0;  // the largest device-local heap
  bool software = false;      // a CPU device (lavapipe, SwiftShader): Dawn prefers any other
  // The features Dawn requires of a Vulkan adapter that this device lacks, e.g.
  // "shaderSampledImageArrayDynamicIndexing"; empty when Dawn can use it.
  std::vector<std::string> missing_for_dawn;
};

struct VulkanDevices {
  std::vector<VulkanDevice> devices;
  std::string error;  // why there is no list (no Vulkan loader, no driver), else ""
};

// Asks the Vulkan loader (libvulkan.so.1, opened at run time so that the plugin needs no Vulkan
// at all on a machine without it). Honours VK_ICD_FILENAMES / VK_DRIVER_FILES.
VulkanDevices find_vulkan_devices();

}  // namespace wasinn::tensorflowlite
