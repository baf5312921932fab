#include "devices.h"

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

Error DeviceList::check(ov::Core &core, int32_t target, const std::string &device) {
  std::call_once(once_, [&] {
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
  const char *names[] = {"cpu", "gpu", "tpu", "auto"};
  return {WASINN_UNSUPPORTED_OPERATION, std::string("target ") + names[target] +
                                            " needs the OpenVINO device " + device +
                                            ", which this machine lacks; OpenVINO found: " + list};
}

}  // namespace wasinn::openvino
