#include "vulkan_probe.h"

#include <dlfcn.h>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <cstdlib>
#include <vector>

namespace wasinn::llamacpp::vulkan_probe {
namespace {

// The loader's variables that choose drivers: when one is set, it is likely the cause.
std::string driver_env() {
  std::string s;
  for (const char *name : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES"}) {
    if (const char *v = std::getenv(name)) s += std::string(s.empty() ? " (" : ", ") + name + "=" + v;
  }
  return s.empty() ? s : s + ")";
}

}  // namespace

std::string why_no_device() {
  // Never closed: the loader may already be in use by ggml-vulkan, and unloading it gains nothing.
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return "the Vulkan loader libvulkan.so.1 is not installed (Debian: libvulkan1 and a driver, "
           "e.g. mesa-vulkan-drivers)";
  auto get_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  if (!get_proc) return "libvulkan.so.1 has no vkGetInstanceProcAddr";
  auto create = reinterpret_cast<PFN_vkCreateInstance>(get_proc(nullptr, "vkCreateInstance"));
  if (!create) return "libvulkan.so.1 has no vkCreateInstance";
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "wasinn", 1, nullptr, 0, VK_API_VERSION_1_2};
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, nullptr, 0, &app, 0, nullptr, 0, nullptr};
  VkInstance instance = VK_NULL_HANDLE;
  const VkResult r = create(&info, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return "the Vulkan loader found no driver" + driver_env() + " (install one, e.g. mesa-vulkan-drivers)";
  if (r != VK_SUCCESS) return "vkCreateInstance failed (VkResult " + std::to_string(r) + ")" + driver_env();
  auto destroy = reinterpret_cast<PFN_vkDestroyInstance>(get_proc(instance, "vkDestroyInstance"));
  auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(get_proc(instance, "vkEnumeratePhysicalDevices"));
  auto properties = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(get_proc(instance, "vkGetPhysicalDeviceProperties"));
  std::string why;
  uint32_t n = 0;
  if (!destroy || !enumerate || !properties || enumerate(instance, &n, nullptr) != VK_SUCCESS) {
    why = "the Vulkan instance cannot list devices";
  } else {
    std::vector<VkPhysicalDevice> devices(n);
    enumerate(instance, &n, devices.data());
    std::string cpu_type, other;
    for (uint32_t i = 0; i < n; ++i) {
      VkPhysicalDeviceProperties p{};
      properties(devices[i], &p);
      std::string &list = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? cpu_type : other;
      list += (list.empty() ? "" : ", ") + std::to_string(i) + ": " + p.deviceName;
    }
    if (n == 0) {
      why = "Vulkan lists no device" + driver_env();
    } else if (other.empty()) {
      why = "Vulkan lists only CPU-type devices (" + cpu_type +
            "), which ggml skips unless GGML_VK_VISIBLE_DEVICES names them (e.g. GGML_VK_VISIBLE_DEVICES=0)";
    } else {
      why = "ggml-vulkan did not take the Vulkan devices (" + other +
            "): it needs Vulkan 1.2; GGML_VK_VISIBLE_DEVICES, if set, chooses among them";
    }
  }
  if (destroy) destroy(instance, nullptr);
  return why;
}

}  // namespace wasinn::llamacpp::vulkan_probe
