#include "devices.h"

#include "wasinn/plugin_sdk/load_request.hpp"

namespace wasinn::openvino {

std::string device_for_target(int32_t target) {
  switch (target) {
    case WASINN_TARGET_CPU: return "CPU";
    case WASINN_TARGET_GPU: return "GPU";
    case WASINN_TARGET_TPU: return "NPU";
    case WASINN_TARGET_AUTO: return "AUTO";
    default: return {};
  }
}

Error DeviceList::check_cpu(ov::Core &core) {
  std::call_once(cpu_once_, [&] {
    try {
      // Loads and creates the CPU plugin only, which compiling needs anyway.
      if (core.get_versions("CPU").empty()) cpu_error_ = "OpenVINO has no CPU plugin";
    } catch (const std::exception &e) {
      cpu_error_ = ov_reason(e);
      if (cpu_error_.empty()) cpu_error_ = "its plugin cannot be loaded";
    }
  });
  if (cpu_error_.empty()) return {};
  return {WASINN_UNSUPPORTED_OPERATION,
          "target cpu needs the OpenVINO device CPU, which cannot be used here: " + cpu_error_};
}

Error DeviceList::check(ov::Core &core, int32_t target, const std::string &device) {
  if (device == "CPU") return check_cpu(core);
  std::call_once(all_once_, [&] {
    try {
      found_ = core.get_available_devices();
    } catch (const std::exception &e) {
      query_error_ = ov_reason(e);
    }
  });
  // AUTO picks among the devices found, so any device will do.
  bool present = device == "AUTO" ? !found_.empty() : false;
  for (const std::string &d : found_) {
    // Several devices of one kind are numbered: "GPU.0", "GPU.1".
    if (d == device || (d.size() > device.size() && d.compare(0, device.size(), device) == 0 &&
                        d[device.size()] == '.'))
      present = true;
  }
  if (present) return {};
  std::string list;
  for (const std::string &d : found_) list += (list.empty() ? "" : ", ") + d;
  if (list.empty()) list = query_error_.empty() ? "none" : "none (" + query_error_ + ")";
  return {WASINN_UNSUPPORTED_OPERATION, std::string("target ") + sdk::target_name(target) +
                                            " needs the OpenVINO device " + device +
                                            ", which this machine lacks; OpenVINO found: " + list};
}

}  // namespace wasinn::openvino
