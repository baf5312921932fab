// The process-wide backend object: one ov::Core (OpenVINO recommends one per process: each
// Core loads its own device plugins), the device list, and the default config from
// backend_create. ov::Core is thread-safe, so graphs load concurrently without a lock here.
#pragma once

#include <openvino/runtime/core.hpp>

#include <memory>

#include "ov_config.h"
#include "ov_devices.h"

struct wasinn_backend {
  ov::Core core;
  wasinn_ov::DeviceList devices;
  wasinn_ov::Config defaults;
};

namespace wasinn_ov {

Error create_backend(const char *config, size_t config_length, std::unique_ptr<wasinn_backend> &out);

}  // namespace wasinn_ov
