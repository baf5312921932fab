// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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

  ov::Core& core() { return core_; }
  DeviceList& device_list() const { return device_list_; }
  const Config& defaults() const { return defaults_; }
  // `wasinn backends --check`: the devices OpenVINO found, and why gpu/tpu have none. Asked for
  // on first use, not at create: listing them loads every device plugin (devices.h).
  const std::string& description() const { return device_list_.summary(core_); }
  const std::vector<sdk::Device>& devices() const { return device_list_.devices(core_); }
  const char* target_unavailable(int32_t target) const { return device_list_.target_unavailable(core_, target); }

 private:
  ov::Core core_;
  mutable DeviceList device_list_;  // guards itself; fills itself on first use
  Config defaults_;
};

}  // namespace wasinn::openvino
