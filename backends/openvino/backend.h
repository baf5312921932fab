// The process-wide OpenVINO backend: one ov::Core (OpenVINO recommends one per process: each
// Core loads its own device plugins), the device list, and the default config from
// backend_create. ov::Core is thread-safe and the rest is immutable after create, except the
// device list, which guards itself; graphs load concurrently without a lock here.
#pragma once

#include <openvino/runtime/core.hpp>

#include <memory>
#include <string_view>

#include "config.h"
#include "devices.h"
#include "ov_exception.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::openvino {

class OvGraph;
class OvContext;

class OvBackend {
 public:
  WASINN_SDK_BACKEND(OvBackend, OvGraph, OvContext, "openvino")

  ov::Core &core() { return core_; }
  DeviceList &devices() { return devices_; }
  const Config &defaults() const { return defaults_; }

 private:
  ov::Core core_;
  DeviceList devices_;
  Config defaults_;
};

}  // namespace wasinn::openvino
