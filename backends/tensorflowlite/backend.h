// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide TensorFlow Lite backend: one LiteRT environment (which registers the
// accelerators it can load), the hardware those accelerators cover, the external delegates the
// host configured (delegate_accelerator.h), and the lock that serializes compilation. Creating
// it routes LiteRT's log lines to the host (litert_log.h).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.h"
#include "delegate_library.h"
#include "handles.h"
#include "litert_status.h"
#include "vulkan_common/vulkan_devices.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflowlite {

class TfliteGraph;
class TfliteContext;

// Where one graph runs: the LiteRT accelerators asked for and the external delegate that takes
// its nodes first, if any.
struct Placement {
  LiteRtHwAcceleratorSet hardware = kLiteRtHwAcceleratorCpu;
  const DelegateSpec* delegate = nullptr;  // one of the backend's; lives as long
  bool fallback_cpu = false;               // a delegate that cannot run it leaves it to the CPU
};

class TfliteBackend {
 public:
  WASINN_SDK_BACKEND(TfliteBackend, TfliteGraph, TfliteContext, "tensorflowlite")

  // The target mapping. A graph config's "delegate": NAME picks a configured delegate (it must
  // serve the target, unless the target is auto); "none" runs without one. Otherwise
  //   cpu  -> a delegate configured for "cpu" if any, else LiteRT's CPU accelerator;
  //   gpu  -> the "gpu" delegate, else LiteRT's GPU accelerator when one is registered;
  //   tpu  -> the "tpu" delegate, else LiteRT's NPU accelerator when one is registered;
  //   auto -> the tpu, then the gpu, then the cpu delegate, else every registered accelerator,
  //           with the CPU taking what they cannot (and the whole model if a delegate fails).
  // UNSUPPORTED_OPERATION, with the reason, when the target has nothing here.
  Error place(int32_t target, const GraphConfig& config, Placement& out) const;

  // The library of a configured delegate, opened on first use (under the load isolation of the
  // caller's load, see docs/backends/tensorflow.md). Thread-safe.
  Error open_delegate(const DelegateSpec& spec, const DelegateLibrary*& out);

  LiteRtEnvironment env() const { return env_.get(); }
  // Why target gpu/tpu has nothing here (for a refusal and `backends --check`), or nullptr.
  const char* target_unavailable(int32_t target) const;
  // The devices graphs can run on: the CPU (XNNPACK), each Vulkan device the GPU accelerator can
  // use, each configured delegate. Made on first use, as gpu() (`backends --check` asks).
  const std::vector<sdk::Device>& devices() const;
  // The name of the Vulkan device the GPU accelerator will run on (Dawn's first usable one),
  // for a graph's "device" property; "" without one.
  const std::string& gpu_device() const { return gpu().device; }
  // What serves each target, for `wasinn backends --check` (the SDK's backend_description).
  const std::string& description() const;
  // LiteRT does not document LiteRtCreateCompiledModel as thread-safe on a shared environment
  // and model, and it runs once per context, off the hot path: one at a time is cheap safety.
  std::mutex& compile_mutex() { return compile_mu_; }

 private:
  Error accelerators_for(int32_t target, LiteRtHwAcceleratorSet& out) const;
  const DelegateSpec* configured_for(int32_t target) const;
  // "npu -> tpu (/usr/lib/libvx_delegate.so)" per delegate, for details.
  std::string describe_delegates() const;
  // What serves each target here, for description():
  // "tpu: delegate npu (/usr/lib/libvx_delegate.so), CPU for the rest; gpu: nothing; ...".
  std::string describe_targets() const;
  // The names of the LiteRT accelerators supporting any of `hardware`, or "".
  std::string accelerators_serving(LiteRtHwAcceleratorSet hardware) const;

  // What target gpu has here: the Vulkan devices Dawn can use, all devices found as text (for
  // description()), the first usable one's name, and why gpu cannot run here ("" when it can).
  // Found on first use (a gpu or auto load, the device report), not at create: a Vulkan instance
  // loads the driver (lavapipe with LLVM: ~50 MiB, ~40 ms), which CPU loads never need.
  struct GpuState {
    std::vector<vulkan::VulkanDevice> usable;
    std::string devices, device, unavailable;
  };
  const GpuState& gpu() const;

  std::string runtime_dir_;  // where LiteRT looks for its GPU accelerator
  EnvironmentPtr env_;
  mutable std::once_flag gpu_once_;
  mutable GpuState gpu_;
  // Union of what the registered accelerators support (kLiteRtHwAccelerator* bits) and their
  // names, for the detail of an unsupported target. Fixed after creation.
  LiteRtHwAcceleratorSet hardware_ = 0;
  std::string accelerator_names_;
  std::vector<std::pair<std::string, LiteRtHwAcceleratorSet>> accelerators_;
  std::vector<DelegateSpec> delegates_;  // fixed after creation
  mutable std::once_flag devices_once_;
  mutable std::vector<sdk::Device> devices_;
  mutable std::once_flag description_once_;
  mutable std::string description_;  // fixed once made
  std::mutex libraries_mu_;
  std::map<std::string, std::unique_ptr<DelegateLibrary>> libraries_;  // by delegate name
  std::mutex compile_mu_;
};

}  // namespace wasinn::tensorflowlite
