// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The handful of CUDA driver API calls the probe needs, resolved with dlsym so the plugin links
// no CUDA library and builds without the CUDA headers. Signatures are the driver API's (cuda.h).
#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>

namespace wasinn::onnxruntime {
namespace {

using CUresult = int;
using CUdevice = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kStubLibrary = 34;         // CUDA_ERROR_STUB_LIBRARY
constexpr CUresult kInsufficientDriver = 35;  // CUDA_ERROR_INSUFFICIENT_DRIVER
constexpr CUresult kNoDevice = 100;           // CUDA_ERROR_NO_DEVICE

struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceTotalMem_v2)(size_t*, CUdevice);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

template <typename F>
bool bind(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  return out != nullptr;
}

std::string error_text(const DriverApi& api, CUresult r) {
  const char* s = nullptr;
  if (api.cuGetErrorString && api.cuGetErrorString(r, &s) == kSuccess && s)
    return std::string(s) + " (CUresult " + std::to_string(r) + ")";
  return "CUresult " + std::to_string(r);
}

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

CudaDriver probe_cuda_driver(int needed) {
  CudaDriver out;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    out.unusable = std::string("no NVIDIA driver: libcuda.so.1 cannot be loaded (") + (why ? why : "not found") +
                   "), so no CUDA device is visible; install the NVIDIA driver, version 580 or newer for CUDA " +
                   cuda_version_text(needed) +
                   ", or in a container run with the NVIDIA container toolkit, which mounts it "
                   "(podman --device nvidia.com/gpu=all, docker --gpus all)";
    return out;
  }
  DriverApi api{};
  if (!bind(lib, "cuInit", api.cuInit) || !bind(lib, "cuDriverGetVersion", api.cuDriverGetVersion) ||
      !bind(lib, "cuDeviceGetCount", api.cuDeviceGetCount) || !bind(lib, "cuDeviceGet", api.cuDeviceGet) ||
      !bind(lib, "cuDeviceGetName", api.cuDeviceGetName) ||
      !bind(lib, "cuDeviceTotalMem_v2", api.cuDeviceTotalMem_v2)) {
    out.unusable = "the libcuda.so.1 found lacks the CUDA driver API (is it the NVIDIA driver's?)";
    return out;
  }
  bind(lib, "cuGetErrorString", api.cuGetErrorString);  // optional: only words the errors

  // The version is known without initialising, so "too old" is said even when cuInit fails.
  if (api.cuDriverGetVersion(&out.version) != kSuccess) out.version = 0;
  const CUresult init = api.cuInit(0);
  if (out.version && out.version < needed) {
    out.unusable = "the NVIDIA driver is too old: it supports CUDA " + cuda_version_text(out.version) +
                   ", the CUDA provider needs CUDA " + cuda_version_text(needed) +
                   " (driver 580 or newer); update the driver";
    return out;
  }
  if (init == kNoDevice) {
    out.unusable = "no CUDA device: the NVIDIA driver is installed but finds no GPU (" + error_text(api, init) + ")";
    // The usual way GPUs are hidden on purpose, so the reason says when it is in play.
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
      out.unusable += std::string("; CUDA_VISIBLE_DEVICES is \"") + visible + "\"";
    return out;
  }
  if (init == kStubLibrary) {
    out.unusable = "no NVIDIA driver: the libcuda.so.1 found is the CUDA toolkit's stub (" + error_text(api, init) +
                   "); install the NVIDIA driver";
    return out;
  }
  if (init == kInsufficientDriver) {
    out.unusable = "the NVIDIA driver is too old for this CUDA (" + error_text(api, init) + ")";
    return out;
  }
  if (init != kSuccess) {
    out.unusable = "the NVIDIA driver failed to initialise: " + error_text(api, init);
    return out;
  }
  int count = 0;
  if (CUresult r = api.cuDeviceGetCount(&count); r != kSuccess || count <= 0) {
    out.unusable = "no CUDA device: " + (r != kSuccess ? error_text(api, r) : "the driver lists none");
    return out;
  }
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    if (api.cuDeviceGet(&dev, i) != kSuccess) continue;
    CudaDevice d;
    char name[256] = {};
    if (api.cuDeviceGetName(name, sizeof name - 1, dev) == kSuccess) d.name = name;
    size_t bytes = 0;
    if (api.cuDeviceTotalMem_v2(&bytes, dev) == kSuccess) d.memory_bytes = bytes;
    out.devices.push_back(std::move(d));
  }
  return out;
}

}  // namespace wasinn::onnxruntime
