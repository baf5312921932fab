// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "vulkan_devices.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

#ifdef WASINN_NO_VULKAN_HEADERS

namespace wasinn::vulkan {
VulkanDevices find_vulkan_devices() {
  return {{}, "this plugin was built without Vulkan's headers (libvulkan-dev), so it cannot look"};
}
}  // namespace wasinn::vulkan

#else

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

namespace wasinn::vulkan {
namespace {

// The loader's variables that choose drivers: when one is set, it is likely the cause.
std::string driver_env() {
  std::string s;
  for (const char* name : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES"}) {
    if (const char* v = std::getenv(name)) s += std::string(s.empty() ? " (" : ", ") + name + "=" + v;
  }
  return s.empty() ? s : s + ")";
}

std::string vk_result(VkResult r) {
  switch (r) {
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver)";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    default: return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

// Dawn's Vulkan backend turns an adapter away ("Vulkan shaderUniform*ArrayDynamicIndexing
// required") unless it has all four; Debian 12's lavapipe (Mesa 22.3) lacks the two image ones.
std::vector<std::string> missing_for_dawn(const VkPhysicalDeviceFeatures& f) {
  std::vector<std::string> missing;
  if (!f.shaderUniformBufferArrayDynamicIndexing) missing.push_back("shaderUniformBufferArrayDynamicIndexing");
  if (!f.shaderSampledImageArrayDynamicIndexing) missing.push_back("shaderSampledImageArrayDynamicIndexing");
  if (!f.shaderStorageBufferArrayDynamicIndexing) missing.push_back("shaderStorageBufferArrayDynamicIndexing");
  if (!f.shaderStorageImageArrayDynamicIndexing) missing.push_back("shaderStorageImageArrayDynamicIndexing");
  return missing;
}

}  // namespace

VulkanDevices find_vulkan_devices() {
  VulkanDevices out;
  // Never closed: Vulkan drivers do not expect their loader to go away, and the GPU accelerator
  // opens the same library again.
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    out.error =
        std::string("no Vulkan loader (libvulkan.so.1: ") + dlerror() + "; install libvulkan1 and a Vulkan driver)";
    return out;
  }
  auto get = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  auto create = get ? reinterpret_cast<PFN_vkCreateInstance>(get(nullptr, "vkCreateInstance")) : nullptr;
  if (!create) {
    out.error = "libvulkan.so.1 has no vkCreateInstance";
    return out;
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "wasinn";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (VkResult r = create(&info, nullptr, &instance); r != VK_SUCCESS) {
    out.error = r == VK_ERROR_INCOMPATIBLE_DRIVER
                    ? "the Vulkan loader found no driver" + driver_env() + " (install one, e.g. mesa-vulkan-drivers)"
                    : "creating a Vulkan instance failed: " + vk_result(r) + driver_env();
    return out;
  }
  auto fn = [&](const char* name) { return get(instance, name); };
  auto destroy = reinterpret_cast<PFN_vkDestroyInstance>(fn("vkDestroyInstance"));
  auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(fn("vkEnumeratePhysicalDevices"));
  auto properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(fn("vkGetPhysicalDeviceProperties2"));
  auto features = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures>(fn("vkGetPhysicalDeviceFeatures"));
  auto memory = reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties>(fn("vkGetPhysicalDeviceMemoryProperties"));
  uint32_t n = 0;
  std::vector<VkPhysicalDevice> physical;
  if (enumerate && properties2 && features && memory && enumerate(instance, &n, nullptr) == VK_SUCCESS) {
    physical.resize(n);
    if (enumerate(instance, &n, physical.data()) != VK_SUCCESS) physical.clear();
    physical.resize(std::min<size_t>(n, physical.size()));
  }
  for (VkPhysicalDevice p : physical) {
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &driver;
    properties2(p, &props);
    VkPhysicalDeviceFeatures f{};
    features(p, &f);
    VkPhysicalDeviceMemoryProperties mem{};
    memory(p, &mem);
    VulkanDevice d;
    d.name = props.properties.deviceName;
    d.software = props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    d.driver = driver.driverInfo[0] ? driver.driverInfo : driver.driverName;  // "Mesa 22.3.6 (LLVM 15.0.6)"
    for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
      if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
        d.memory_bytes = std::max<uint64_t>(d.memory_bytes, mem.memoryHeaps[i].size);
    d.missing_for_dawn = missing_for_dawn(f);
    out.devices.push_back(std::move(d));
  }
  if (destroy) destroy(instance, nullptr);
  if (out.devices.empty()) out.error = "Vulkan lists no device" + driver_env();
  return out;
}

}  // namespace wasinn::vulkan

#endif  // WASINN_NO_VULKAN_HEADERS
