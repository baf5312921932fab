#include "devices.h"

#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "log_router.h"
#include "vulkan_probe.h"

// Set by CMake: WASINN_GGML_MODULE_DIRS joined by ':'.
#ifndef WASINN_GGML_MODULE_PATH
#define WASINN_GGML_MODULE_PATH ""
#endif

namespace wasinn::llamacpp {
namespace {

std::vector<std::string> module_dirs() {
  std::vector<std::string> dirs;
  std::string_view path = WASINN_GGML_MODULE_PATH;
  while (!path.empty()) {
    const size_t colon = path.find(':');
    if (colon != 0) dirs.emplace_back(path.substr(0, colon));
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  return dirs;
}

std::string joined(const std::vector<std::string> &dirs) {
  std::string s;
  for (const auto &d : dirs) s += (s.empty() ? "" : ", ") + d;
  return s.empty() ? "(no directory configured)" : s;
}

// The first of `dirs` holding `file`, as a path, or "".
std::string find_module(const std::vector<std::string> &dirs, const std::string &file) {
  std::error_code ec;
  for (const auto &d : dirs) {
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
ModuleLoad load_module(const std::vector<std::string> &dirs, const std::string &name, const char *reg_name) {
  if (ggml_backend_reg_by_name(reg_name)) return {};
  const std::string file = "libggml-" + name + ".so";
  const std::string path = find_module(dirs, file);
  if (path.empty()) return {false, "no " + file + " in " + joined(dirs)};
  ggml_common::LogScope scope(false);  // keeps ggml's error lines (dlerror, a failed init) for the reason
  if (ggml_backend_load(path.c_str())) return {};
  return {true, path + " did not load" + (scope.errors().empty() ? "" : " (" + scope.errors() + ")")};
}

std::string device_label(ggml_backend_dev_t dev) {
  return std::string(ggml_backend_dev_name(dev)) + " (" + ggml_backend_dev_description(dev) + ")";
}

}  // namespace

const DeviceSet &DeviceSet::get() {
  // Function static: built once, thread-safely, before any model loads, so no load ever reads
  // ggml's registry while a module is being added to it.
  static const DeviceSet set;
  return set;
}

DeviceSet::DeviceSet() {
  const std::vector<std::string> dirs = module_dirs();
  if (ModuleLoad cpu = load_module(dirs, "cpu", "CPU"); !cpu.why.empty())
    throw std::runtime_error("ggml's CPU backend: " + cpu.why + " (run scripts/fetch-deps.sh llamacpp)");
  const ModuleLoad vulkan = load_module(dirs, "vulkan", "Vulkan");
  const ModuleLoad cuda = load_module(dirs, "cuda", "CUDA");

  for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    const auto type = ggml_backend_dev_type(dev);
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(dev, &free, &total);
    const std::string api = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
    if (type == GGML_BACKEND_DEVICE_TYPE_CPU) {
      found_.push_back({"CPU (" + std::string(ggml_backend_dev_description(dev)) + ")", "CPU", total, WASINN_TARGET_CPU});
    } else if (type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU) {
      gpus_.push_back({dev, device_label(dev)});
      found_.push_back({gpus_.back().label, api, total, WASINN_TARGET_GPU});
    }
  }
  if (!gpus_.empty()) return;
  // ggml says little when its Vulkan module finds nothing (or fails to start without a driver):
  // Vulkan itself is asked why.
  std::string vk = vulkan.why;
  if (vulkan.present) vk = (vk.empty() ? "" : vk + "; ") + vulkan_probe::why_no_device();
  gpu_unavailable_ = "no GPU device: Vulkan: " + vk + "; CUDA: " +
                     (cuda.why.empty() ? "the module found no device" : cuda.why);
}

}  // namespace wasinn::llamacpp
