// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>

#include "delegate_accelerator.h"
#include "graph.h"
#include "litert_log.h"

namespace wasinn::tensorflowlite {
namespace {

// The directory of the libLiteRt.so this plugin runs with, or "" if the loader will not say.
std::string litert_library_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&LiteRtCreateEnvironment), &info) || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

}  // namespace

// libLiteRt.so exports no version query; the version is the one scripts/deps pinned.
const char* TfliteBackend::framework_version() noexcept { return "LiteRT " WASINN_LITERT_VERSION; }

Error TfliteBackend::create(std::string_view config, std::unique_ptr<TfliteBackend>& out) {
  BackendConfig parsed;
  if (Error e = parse_backend_config(config, parsed)) return e;
  route_litert_logs();  // before LiteRtCreateEnvironment, LiteRT's first lines
  auto b = std::make_unique<TfliteBackend>();
  b->delegates_ = std::move(parsed.delegates);
  // With delegates, XNNPACK must come after them in LiteRT's registry (delegate_accelerator.h).
  const bool ordered = !b->delegates_.empty();
  std::vector<LiteRtEnvOption> options;
  if (ordered) options.push_back(without_cpu_auto_registration());
  // LiteRT dlopens its GPU accelerator by bare name unless told where: without this the
  // libLiteRtWebGpuAccelerator.so beside libLiteRt.so is never found.
  b->runtime_dir_ = litert_library_dir();
  if (!b->runtime_dir_.empty()) {
    LiteRtEnvOption dir{};
    dir.tag = kLiteRtEnvOptionTagRuntimeLibraryDir;
    dir.value.type = kLiteRtAnyTypeString;
    dir.value.str_value = b->runtime_dir_.c_str();  // LiteRT copies it
    options.push_back(dir);
  }
  LiteRtEnvironment env = nullptr;
  if (LiteRtStatus st =
          LiteRtCreateEnvironment(static_cast<int>(options.size()), options.empty() ? nullptr : options.data(), &env))
    return litert_error(st, "creating the LiteRT environment");
  b->env_.reset(env);
  if (ordered)
    if (Error e = register_delegates_before_cpu(env)) return e;

  LiteRtParamIndex n = 0;
  if (LiteRtStatus st = LiteRtGetNumAccelerators(env, &n)) return litert_error(st, "listing LiteRT accelerators");
  for (LiteRtParamIndex i = 0; i < n; ++i) {
    LiteRtAccelerator acc = nullptr;
    LiteRtHwAcceleratorSet hw = 0;
    const char* name = nullptr;
    if (LiteRtGetAccelerator(env, i, &acc) != kLiteRtStatusOk ||
        LiteRtGetAcceleratorHardwareSupport(acc, &hw) != kLiteRtStatusOk)
      continue;
    if (LiteRtGetAcceleratorName(acc, &name) == kLiteRtStatusOk && name) {
      if (std::string_view(name) == kDelegateAcceleratorName)
        continue;  // ours: describe_targets() shows what it serves
      if (!b->accelerator_names_.empty()) b->accelerator_names_ += ", ";
      b->accelerator_names_ += name;
      b->accelerators_.emplace_back(name, hw);
    }
    b->hardware_ |= hw;
  }
  if (!(b->hardware_ & kLiteRtHwAcceleratorCpu)) return sdk::runtime_error("LiteRT registered no CPU accelerator");
  if (b->hardware_ & kLiteRtHwAcceleratorGpu)
    route_accelerator_logs(b->runtime_dir_ + "/libLiteRtWebGpuAccelerator.so");
  if (sdk::log_enabled(WASINN_LOG_INFO))
    sdk::log(WASINN_LOG_INFO, "accelerators: " + b->accelerator_names_ +
                                  (b->delegates_.empty() ? "" : "; delegates: " + b->describe_delegates()));
  out = std::move(b);
  return {};
}

const TfliteBackend::GpuState& TfliteBackend::gpu() const {
  std::call_once(gpu_once_, [this] {
    GpuState& g = gpu_;
    if (!(hardware_ & kLiteRtHwAcceleratorGpu)) {
      g.unavailable = "LiteRT registered no GPU accelerator (libLiteRtWebGpuAccelerator.so is not in " +
                      (runtime_dir_.empty() ? std::string("libLiteRt.so's directory") : runtime_dir_) +
                      "; scripts/fetch-deps.sh tensorflowlite installs it)";
      return;
    }
    // Dawn, inside the WebGPU accelerator, reaches a GPU through Vulkan on Linux.
    const vulkan::VulkanDevices found = vulkan::find_vulkan_devices();
    std::vector<std::string> refused;
    for (const vulkan::VulkanDevice& d : found.devices) {
      const std::string label = d.name + (d.driver.empty() ? "" : " [" + d.driver + "]");
      g.devices += (g.devices.empty() ? "" : "; ") + label +
                   (d.memory_bytes ? ", " + std::to_string(d.memory_bytes >> 20) + " MiB" : "");
      if (d.missing_for_dawn.empty()) {
        // The one Dawn's default adapter request picks: a hardware GPU before a software one.
        if (g.device.empty() || (!d.software && std::all_of(g.usable.begin(), g.usable.end(),
                                                            [](const vulkan::VulkanDevice& u) { return u.software; })))
          g.device = d.name;
        g.usable.push_back(d);
      } else {
        g.devices += " (Dawn refuses it: no " + join(d.missing_for_dawn) + ")";
        refused.push_back(label + " lacks " + join(d.missing_for_dawn));
      }
    }
    if (g.usable.empty())
      g.unavailable = !found.error.empty()
                          ? "no Vulkan device for LiteRT's WebGPU accelerator: " + found.error
                          : "no Vulkan device that Dawn (LiteRT's WebGPU accelerator) accepts: " + join(refused) +
                                ", which Dawn requires (lavapipe of Mesa 22.3, Debian 12's, lacks them; Mesa "
                                "25.0's has them; a real GPU's driver has them)";
    if (sdk::log_enabled(WASINN_LOG_INFO))
      sdk::log(WASINN_LOG_INFO, "Vulkan devices: " + (g.devices.empty() ? "none" : g.devices) +
                                    "; target gpu: " + (g.unavailable.empty() ? g.device : g.unavailable));
  });
  return gpu_;
}

const std::vector<sdk::Device>& TfliteBackend::devices() const {
  std::call_once(devices_once_, [this] {
    devices_.push_back({"CPU", "CPU (LiteRT's XNNPACK)", 0, WASINN_TARGET_CPU});
    for (const vulkan::VulkanDevice& d : gpu().usable)
      devices_.push_back({d.name, "Vulkan (LiteRT's WebGPU accelerator)", d.memory_bytes, WASINN_TARGET_GPU});
    for (const DelegateSpec& d : delegates_) devices_.push_back({d.name, "TFLite delegate " + d.path, 0, d.target});
  });
  return devices_;
}

const std::string& TfliteBackend::description() const {
  std::call_once(description_once_, [this] { description_ = "targets: " + describe_targets(); });
  return description_;
}

const char* TfliteBackend::target_unavailable(int32_t target) const {
  if (target == WASINN_TARGET_GPU && !configured_for(WASINN_TARGET_GPU) && !gpu().unavailable.empty())
    return gpu().unavailable.c_str();
  if (target == WASINN_TARGET_TPU && !configured_for(WASINN_TARGET_TPU) && !(hardware_ & kLiteRtHwAcceleratorNpu))
    return "no NPU/TPU: LiteRT reaches NPUs only through a vendor dispatch library, and none is "
           "installed; configure a TFLite delegate for target tpu";
  return nullptr;
}

Error TfliteBackend::load(const sdk::LoadRequest& request, std::unique_ptr<TfliteGraph>& out) {
  return TfliteGraph::load(*this, request, out);
}

std::string TfliteBackend::describe_delegates() const {
  std::string s;
  for (const auto& d : delegates_)
    s += (s.empty() ? "" : ", ") + d.name + " -> " + sdk::target_name(d.target) + " (" + d.path + ")";
  return s.empty() ? "none" : s;
}

std::string TfliteBackend::accelerators_serving(LiteRtHwAcceleratorSet hardware) const {
  std::string names;
  for (const auto& [name, hw] : accelerators_)
    if (hw & hardware) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::string TfliteBackend::describe_targets() const {
  auto delegate = [](const DelegateSpec& d) { return "delegate " + d.name + " (" + d.path + "), CPU for the rest"; };
  std::string s;
  for (int32_t target : {WASINN_TARGET_CPU, WASINN_TARGET_GPU, WASINN_TARGET_TPU}) {
    const LiteRtHwAcceleratorSet hw = target == WASINN_TARGET_CPU   ? kLiteRtHwAcceleratorCpu
                                      : target == WASINN_TARGET_GPU ? kLiteRtHwAcceleratorGpu
                                                                    : kLiteRtHwAcceleratorNpu;
    const DelegateSpec* d = configured_for(target);
    const bool no_gpu = target == WASINN_TARGET_GPU && !gpu().unavailable.empty();
    const std::string litert = no_gpu ? "" : accelerators_serving(hw);
    // Why gpu has nothing is the device report's (target_unavailable): not repeated here.
    s += std::string(s.empty() ? "" : "; ") + sdk::target_name(target) + ": " +
         (d                ? delegate(*d)
          : litert.empty() ? "nothing"
                           : litert);
  }
  const DelegateSpec* best = configured_for(WASINN_TARGET_TPU);
  if (!best) best = configured_for(WASINN_TARGET_GPU);
  if (!best) best = configured_for(WASINN_TARGET_CPU);
  const LiteRtHwAcceleratorSet usable = gpu().unavailable.empty() ? hardware_ : (hardware_ & ~kLiteRtHwAcceleratorGpu);
  s += "; auto: " + (best ? delegate(*best) + ", the CPU alone if it fails"
                          : accelerators_serving(usable) + ", the CPU alone if they fail");
  std::string others;
  for (const auto& d : delegates_)
    if (&d != configured_for(d.target)) others += (others.empty() ? "" : ", ") + d.name;
  if (!others.empty()) s += "; by name only (graph config \"delegate\"): " + others;
  return s;
}

const DelegateSpec* TfliteBackend::configured_for(int32_t target) const {
  for (const auto& d : delegates_)
    if (d.target == target) return &d;
  return nullptr;
}

Error TfliteBackend::place(int32_t target, const GraphConfig& config, Placement& out) const {
  out = {};
  const DelegateSpec* chosen = nullptr;
  if (config.delegate && *config.delegate != "none") {
    for (const auto& d : delegates_)
      if (d.name == *config.delegate) chosen = &d;
    if (!chosen)
      return sdk::invalid("graph config: no delegate named \"" + *config.delegate +
                          "\" (configured: " + describe_delegates() + ")");
    if (target != WASINN_TARGET_AUTO && chosen->target != target)
      return sdk::invalid("graph config: delegate \"" + chosen->name + "\" serves target " +
                          sdk::target_name(chosen->target) + ", not " + sdk::target_name(target));
  } else if (config.delegate) {  // "none"
    if (target == WASINN_TARGET_GPU || target == WASINN_TARGET_TPU)
      return sdk::invalid(std::string("graph config: \"delegate\": \"none\" cannot serve target ") +
                          sdk::target_name(target) + "; use target cpu or auto");
  } else if (target == WASINN_TARGET_AUTO) {
    for (int32_t t : {WASINN_TARGET_TPU, WASINN_TARGET_GPU, WASINN_TARGET_CPU})
      if (!chosen) chosen = configured_for(t);
  } else {
    chosen = configured_for(target);
  }
  if (chosen) {
    out.delegate = chosen;
    out.hardware = kLiteRtHwAcceleratorCpu;  // the delegate first, XNNPACK for the rest
    out.fallback_cpu = config.fallback_cpu.value_or(chosen->fallback_cpu || target == WASINN_TARGET_AUTO);
    return {};
  }
  return accelerators_for(target, out.hardware);
}

Error TfliteBackend::open_delegate(const DelegateSpec& spec, const DelegateLibrary*& out) {
  std::lock_guard lock(libraries_mu_);
  auto& slot = libraries_[spec.name];
  if (!slot)  // a failure is not kept: the file may appear or be fixed later
    if (Error e = DelegateLibrary::open(spec, slot)) return e;
  out = slot.get();
  return {};
}

Error TfliteBackend::accelerators_for(int32_t target, LiteRtHwAcceleratorSet& out) const {
  const std::string found = "LiteRT registered only " + accelerator_names_;
  const std::string delegates =
      "no external delegate is configured for it (--backend-config "
      "'tensorflowlite={\"delegates\":[{\"path\":\"/path/to/libdelegate.so\",\"target\":\"" +
      std::string(sdk::target_name(target)) + "\"}]}')";
  switch (target) {
    case WASINN_TARGET_CPU: out = kLiteRtHwAcceleratorCpu; return {};
    case WASINN_TARGET_AUTO:
      // Without a device the GPU accelerator would fail the whole compilation, not just step
      // aside: auto then asks for what can run.
      out = gpu().unavailable.empty() ? hardware_ : (hardware_ & ~kLiteRtHwAcceleratorGpu);
      return {};
    case WASINN_TARGET_GPU:
      if (gpu().unavailable.empty()) {
        out = kLiteRtHwAcceleratorGpu;
        return {};
      }
      return sdk::unsupported("target gpu: no GPU here for TensorFlow Lite (" + gpu().unavailable + "; " + delegates +
                              "); use target cpu or auto");
    case WASINN_TARGET_TPU:
      if (hardware_ & kLiteRtHwAcceleratorNpu) {
        out = kLiteRtHwAcceleratorNpu;
        return {};
      }
      return sdk::unsupported("target tpu: no NPU/TPU here for TensorFlow Lite (" + found +
                              "; LiteRT reaches NPUs only through a vendor dispatch library, and none is installed; " +
                              delegates + "); use target cpu");
    default: return sdk::invalid("unknown execution target " + std::to_string(target));
  }
}

}  // namespace wasinn::tensorflowlite
