// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "devices.h"

#include <openvino/runtime/intel_gpu/properties.hpp>

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

Error DeviceList::check_cpu(const ov::Core& core) {
  std::call_once(cpu_once_, [&] {
    try {
      // Loads and creates the CPU plugin only, which compiling needs anyway.
      if (core.get_versions("CPU").empty()) cpu_error_ = "OpenVINO has no CPU plugin";
    } catch (const std::exception& e) {
      cpu_error_ = ov_reason(e);
      if (cpu_error_.empty()) cpu_error_ = "its plugin cannot be loaded";
    }
  });
  if (cpu_error_.empty()) return {};
  return {WASINN_UNSUPPORTED_OPERATION,
          "target cpu needs the OpenVINO device CPU, which cannot be used here: " + cpu_error_};
}

namespace {

// A device as the SDK reports it: its full name and its memory when its plugin says (GPU's
// does), and the target that reaches it.
sdk::Device describe(const ov::Core& core, const std::string& device) {
  sdk::Device d{device, "OpenVINO " + device, 0, WASINN_TARGET_CPU};
  if (device.rfind("GPU", 0) == 0) d.target = WASINN_TARGET_GPU;
  if (device.rfind("NPU", 0) == 0) d.target = WASINN_TARGET_TPU;
  try {
    d.name = core.get_property(device, ov::device::full_name);
  } catch (const std::exception&) {
    // The plugin cannot say: its device name stands.
  }
  try {
    d.memory_bytes = core.get_property(device, ov::intel_gpu::device_total_mem_size);
  } catch (const std::exception&) {
    // Not a GPU, or it cannot say.
  }
  return d;
}

}  // namespace

void DeviceList::find_all(const ov::Core& core) {
  std::call_once(all_once_, [&] {
    try {
      found_ = core.get_available_devices();
    } catch (const std::exception& e) {
      query_error_ = ov_reason(e);
    }
    for (const std::string& name : found_) {
      const sdk::Device d = describe(core, name);
      summary_ += (summary_.empty() ? "" : "; ") + name + " (" + d.name +
                  (d.memory_bytes ? ", " + std::to_string(d.memory_bytes >> 20) + " MiB" : "") + ")";
      devices_.push_back(d);
    }
    if (summary_.empty()) summary_ = query_error_.empty() ? "none" : "none (" + query_error_ + ")";
    if (!present("GPU")) gpu_unavailable_ = missing(WASINN_TARGET_GPU, "GPU");
    if (!present("NPU")) npu_unavailable_ = missing(WASINN_TARGET_TPU, "NPU");
  });
}

bool DeviceList::present(const std::string& device) const {
  // AUTO picks among the devices found, so any device will do.
  if (device == "AUTO") return !found_.empty();
  for (const std::string& d : found_) {
    // Several devices of one kind are numbered: "GPU.0", "GPU.1".
    if (d == device ||
        (d.size() > device.size() && d.compare(0, device.size(), device) == 0 && d[device.size()] == '.'))
      return true;
  }
  return false;
}

std::string DeviceList::missing(int32_t target, const std::string& device) const {
  std::string list;
  for (const std::string& d : found_) list += (list.empty() ? "" : ", ") + d;
  if (list.empty()) list = query_error_.empty() ? "none" : "none (" + query_error_ + ")";
  // What OpenVINO's device plugin needs to find a device, so the reader knows what is missing.
  const std::string needs = device == "GPU"   ? " (OpenVINO's GPU plugin runs on an Intel GPU through OpenCL: it needs "
                                                "Intel's compute runtime, intel-opencl-icd, and a GPU it can open)"
                            : device == "NPU" ? " (OpenVINO's NPU plugin needs an Intel NPU and its driver)"
                                              : "";
  return std::string("target ") + sdk::target_name(target) + " needs the OpenVINO device " + device +
         ", which this machine lacks" + needs + "; OpenVINO found: " + list + "; use target cpu or auto";
}

Error DeviceList::check(const ov::Core& core, int32_t target, const std::string& device) {
  if (device == "CPU") return check_cpu(core);
  find_all(core);
  if (present(device)) return {};
  return {WASINN_UNSUPPORTED_OPERATION, missing(target, device)};
}

const std::string& DeviceList::summary(const ov::Core& core) {
  find_all(core);
  return summary_;
}

const std::vector<sdk::Device>& DeviceList::devices(const ov::Core& core) {
  find_all(core);
  return devices_;
}

const char* DeviceList::target_unavailable(const ov::Core& core, int32_t target) {
  find_all(core);
  if (target != WASINN_TARGET_GPU && target != WASINN_TARGET_TPU) return nullptr;
  const std::string& why = target == WASINN_TARGET_GPU ? gpu_unavailable_ : npu_unavailable_;
  return why.empty() ? nullptr : why.c_str();
}

}  // namespace wasinn::openvino
