// wasi-nn execution targets -> OpenVINO devices, and the check that this machine has the device:
// a missing one is UNSUPPORTED_OPERATION naming the devices OpenVINO found, never a fallback.
#pragma once

#include <openvino/runtime/core.hpp>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ov_exception.h"

namespace wasinn::openvino {

// cpu -> "CPU", gpu -> "GPU", tpu -> "NPU", auto -> "AUTO"; "" for anything else.
std::string device_for_target(int32_t target);

// Whether each device can run models here, asked once per process; thread-safe. The CPU is
// checked by loading its plugin alone: asking OpenVINO for every device loads every device
// plugin (GPU, NPU, AUTO, HETERO, libOpenCL), 26 MiB and ~30 ms a CPU model does not need.
// gpu, tpu and auto still ask, so that a missing device's error lists the ones found.
class DeviceList {
 public:
  // OK when `device` (a name from device_for_target) can run models here.
  Error check(ov::Core &core, int32_t target, const std::string &device);

 private:
  Error check_cpu(ov::Core &core);

  std::once_flag cpu_once_;
  std::string cpu_error_;  // why the CPU plugin cannot be loaded; "" when it can
  std::once_flag all_once_;
  std::vector<std::string> found_;
  std::string query_error_;  // set when get_available_devices itself failed
};

}  // namespace wasinn::openvino
