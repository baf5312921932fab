// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "devices.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "ggml_common/log_router.h"
#include "vulkan_common/vulkan_devices.h"

// Set by CMake: WASINN_GGML_MODULE_DIRS joined by ':'.
#ifndef WASINN_GGML_MODULE_PATH
#define WASINN_GGML_MODULE_PATH ""
#endif

namespace wasinn::llamacpp {
namespace {

// The directory of the libggml this process loaded, then the configured ones: a package that
// carries ggml beside the plugin (the container images, /opt/wasinn/lib) finds its modules there
// wherever the build's absolute directories point.
std::vector<std::string> module_dirs() {
  std::vector<std::string> dirs;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ggml_backend_load), &info) && info.dli_fname)
    dirs.push_back(std::filesystem::path(info.dli_fname).parent_path().lexically_normal().string());
  std::string_view path = WASINN_GGML_MODULE_PATH;
  while (!path.empty()) {
    const size_t colon = path.find(':');
    const std::string dir(path.substr(0, colon));
    if (colon != 0 && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  return dirs;
}

std::string joined(const std::vector<std::string>& dirs) {
  std::string s;
  for (const auto& d : dirs) s += (s.empty() ? "" : ", ") + d;
  return s.empty() ? "(no directory configured)" : s;
}

// The first of `dirs` holding `file`, as a path, or "".
std::string find_module(const std::vector<std::string>& dirs, const std::string& file) {
  std::error_code ec;
  for (const auto& d : dirs) {
    const auto p = std::filesystem::path(d) / file;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

struct ModuleLoad {
  bool present = true;  // the file is there (or the module was loaded already)
  std::string why;      // "" when loaded, else why not
};

// Loads module `name` (libggml-<name>.so) unless its registry `reg_name` is there already (a
// process that also links llama.cpp itself, like the tests, shares ggml's registry).
ModuleLoad load_module(const std::vector<std::string>& dirs, const std::string& name, const char* reg_name) {
  if (ggml_backend_reg_by_name(reg_name)) return {};
  const std::string file = "libggml-" + name + ".so";
  const std::string path = find_module(dirs, file);
  if (path.empty()) return {false, "no " + file + " in " + joined(dirs)};
  ggml_common::LogScope scope(false);  // keeps ggml's error lines (dlerror, a failed init) for the reason
  if (ggml_backend_load(path.c_str())) return {};
  return {true, path + " did not load" + (scope.errors().empty() ? "" : " (" + scope.errors() + ")")};
}

// Why Vulkan offers ggml no device, asked of Vulkan itself: ggml-vulkan only logs "No devices
// found", whether the loader is missing, found no driver, or found only a CPU-type device
// (Mesa's lavapipe), which ggml skips unless GGML_VK_VISIBLE_DEVICES names it.
std::string why_vulkan_has_no_device() {
  const vulkan::VulkanDevices found = vulkan::find_vulkan_devices();
  if (!found.error.empty()) return found.error;
  std::string cpu_type, other;
  for (size_t i = 0; i < found.devices.size(); ++i) {
    std::string& list = found.devices[i].software ? cpu_type : other;
    list += (list.empty() ? "" : ", ") + std::to_string(i) + ": " + found.devices[i].name;
  }
  if (other.empty())
    return "Vulkan lists only CPU-type devices (" + cpu_type +
           "), which ggml skips unless GGML_VK_VISIBLE_DEVICES names them (e.g. GGML_VK_VISIBLE_DEVICES=0)";
  return "ggml-vulkan did not take the Vulkan devices (" + other +
         "): it needs Vulkan 1.2; GGML_VK_VISIBLE_DEVICES, if set, chooses among them";
}

std::string device_label(ggml_backend_dev_t dev) {
  return std::string(ggml_backend_dev_name(dev)) + " (" + ggml_backend_dev_description(dev) + ")";
}

}  // namespace

const DeviceSet& DeviceSet::get() {
  // Function static: built once, thread-safely, before any model loads.
  static const DeviceSet set;
  return set;
}

DeviceSet::DeviceSet() : dirs_(module_dirs()) {
  if (ModuleLoad cpu = load_module(dirs_, "cpu", "CPU"); !cpu.why.empty())
    throw std::runtime_error("ggml's CPU backend: " + cpu.why + " (run scripts/fetch-deps.sh llamacpp)");
  ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  if (!dev) throw std::runtime_error("ggml's CPU module registered no device");
  size_t free = 0, total = 0;
  ggml_backend_dev_memory(dev, &free, &total);
  cpu_ = {"CPU (" + std::string(ggml_backend_dev_description(dev)) + ")", "CPU", total, WASINN_TARGET_CPU};
}

const std::vector<sdk::Device>& DeviceSet::found() const {
  std::call_once(gpus_once_, [this] { find_gpus(); });
  return found_;
}

const std::vector<GpuDevice>& DeviceSet::gpus() const {
  std::call_once(gpus_once_, [this] { find_gpus(); });
  return gpus_;
}

const std::string& DeviceSet::gpu_unavailable() const {
  std::call_once(gpus_once_, [this] { find_gpus(); });
  return gpu_unavailable_;
}

void DeviceSet::find_gpus() const {
  std::unique_lock writer(registry_);  // no model load or context creation reads the registry now
  // CUDA first: its devices come first in ggml's registry, so a GPU that both modules see is
  // used through CUDA by default (placement.cpp).
  const ModuleLoad cuda = load_module(dirs_, "cuda", "CUDA");
  const ModuleLoad vulkan = load_module(dirs_, "vulkan", "Vulkan");
  found_.push_back(cpu_);
  for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    const auto type = ggml_backend_dev_type(dev);
    if (type != GGML_BACKEND_DEVICE_TYPE_GPU && type != GGML_BACKEND_DEVICE_TYPE_IGPU) continue;
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(dev, &free, &total);
    gpus_.push_back({dev, device_label(dev), ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev))});
    found_.push_back({gpus_.back().label, gpus_.back().api, total, WASINN_TARGET_GPU});
  }
  std::string found;
  for (const auto& d : found_) found += (found.empty() ? "" : ", ") + d.name + " [" + d.api + "]";
  if (gpus_.empty()) {
    // ggml says little when its Vulkan module finds nothing (or fails to start without a
    // driver): Vulkan itself is asked why.
    std::string vk = vulkan.why;
    if (vulkan.present) vk = (vk.empty() ? "" : vk + "; ") + why_vulkan_has_no_device();
    gpu_unavailable_ =
        "no GPU device: Vulkan: " + vk + "; CUDA: " + (cuda.why.empty() ? "the module found no device" : cuda.why);
    found += "; " + gpu_unavailable_;
  }
  // Info, shown from --log-level debug (the host shows plugins' framework lines a level lower).
  ggml_common::note(WASINN_LOG_INFO, "devices: " + found);
}

}  // namespace wasinn::llamacpp
