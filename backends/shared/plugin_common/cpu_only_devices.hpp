// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The device report of a backend whose framework build runs on the CPU only (piper, whisper,
// tensorflow): one CPU device, one reason why gpu and tpu cannot run, and the load's refusal of
// them. A backend derives from it, which gives it the SDK's devices() and target_unavailable().
// Immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::plugin_common {

class CpuOnlyDevices {
 public:
  // `cpu_api` names the CPU device's runtime ("CPU (ggml)"); `why_cpu_only` (static storage) is
  // the reason given for target gpu and tpu.
  CpuOnlyDevices(const char* cpu_api, const char* why_cpu_only)
      : devices_{{"CPU", cpu_api, 0, WASINN_TARGET_CPU}}, why_cpu_only_(why_cpu_only) {}

  const std::vector<sdk::Device>& devices() const { return devices_; }
  // Why `target` cannot run here (gpu and tpu, always), or nullptr (cpu and auto).
  const char* target_unavailable(int32_t target) const {
    return target == WASINN_TARGET_GPU || target == WASINN_TARGET_TPU ? why_cpu_only_ : nullptr;
  }
  // A load's answer to its target: UNSUPPORTED_OPERATION with the reason for gpu and tpu.
  sdk::Error check_target(int32_t target) const {
    if (const char* why = target_unavailable(target))
      return sdk::unsupported(std::string("target ") + sdk::target_name(target) + ": " + why);
    return {};
  }

 private:
  std::vector<sdk::Device> devices_;
  const char* why_cpu_only_;
};

}  // namespace wasinn::plugin_common
