// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi-nn execution targets -> OpenVINO devices, and the check that this machine has the device:
// a missing one is UNSUPPORTED_OPERATION naming the devices OpenVINO found, never a fallback.
#pragma once

#include <openvino/runtime/core.hpp>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ov_exception.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::openvino {

// cpu -> "CPU", gpu -> "GPU", tpu -> "NPU", auto -> "AUTO"; "" for anything else.
std::string device_for_target(int32_t target);

// Whether each device can run models here, asked once per process; thread-safe. The CPU is
// checked by loading its plugin alone: asking OpenVINO for every device loads every device
// plugin (GPU, NPU, AUTO, HETERO, libOpenCL), 26 MiB and ~30 ms a CPU model does not need.
// gpu, tpu and auto still ask, so that a missing device's error lists the ones found, and so does
// the device report of `wasinn backends --check` (summary(), target_unavailable()).
class DeviceList {
 public:
  // OK when `device` (a name from device_for_target) can run models here.
  Error check(const ov::Core& core, int32_t target, const std::string& device);
  // Each device OpenVINO found with its full name and memory where it says:
  // "CPU (Intel(R) Xeon(R) ...); GPU.0 (Intel(R) UHD Graphics [0x9bc4] (iGPU), 3 GiB)".
  const std::string& summary(const ov::Core& core);
  // Why target gpu or tpu has no device here (what it needs, and what to do), else nullptr.
  const char* target_unavailable(const ov::Core& core, int32_t target);
  // The devices found, each with the target it serves (CPU cpu, GPU.n gpu, NPU tpu).
  const std::vector<sdk::Device>& devices(const ov::Core& core);

 private:
  Error check_cpu(const ov::Core& core);
  void find_all(const ov::Core& core);
  bool present(const std::string& device) const;
  std::string missing(int32_t target, const std::string& device) const;

  std::once_flag cpu_once_;
  std::string cpu_error_;  // why the CPU plugin cannot be loaded; "" when it can
  std::once_flag all_once_;
  std::vector<std::string> found_;
  std::string query_error_;  // set when get_available_devices itself failed
  std::string summary_;
  std::vector<sdk::Device> devices_;
  std::string gpu_unavailable_, npu_unavailable_;  // "" when the device is there
};

}  // namespace wasinn::openvino
