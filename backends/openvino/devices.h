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

// The devices OpenVINO reports ("CPU", "GPU.0", "NPU", ...), asked for once: the query loads
// every device plugin, which is slow and does not change while the process runs. Thread-safe.
class DeviceList {
 public:
  // OK when `device` (a name from device_for_target) can run models here.
  Error check(ov::Core &core, int32_t target, const std::string &device);

 private:
  std::once_flag once_;
  std::vector<std::string> found_;
  std::string query_error_;  // set when get_available_devices itself failed
};

}  // namespace wasinn::openvino
