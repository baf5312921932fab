// Why Vulkan offers ggml no device, asked of the Vulkan loader directly: ggml-vulkan only logs
// "No devices found", whether the loader is missing, found no driver, or found only a CPU-type
// device (Mesa's lavapipe), which ggml skips unless GGML_VK_VISIBLE_DEVICES names it.
#pragma once

#include <string>

namespace wasinn::llamacpp::vulkan_probe {

// One sentence naming the cause and what to do. Opens libvulkan.so.1 at run time, so the plugin
// loads on a machine without it.
std::string why_no_device();

}  // namespace wasinn::llamacpp::vulkan_probe
