// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Finding ORT's CUDA provider: beside the core, then the driver, then ORT's registration of the
// library as an execution-provider library (which loads it and every CUDA library it links, so
// a missing one is named now rather than at the first load).
#include "cuda_provider.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>

namespace wasinn::onnxruntime {
namespace {

// The folder the ORT core was loaded from: ORT loads its provider libraries from there only.
std::string core_folder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&OrtGetApiBase), &info) || !info.dli_fname) return ".";
  std::string path(info.dli_fname);
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

constexpr const char* kHowToInstall =
    "install it with scripts/setup.sh --gpu (scripts/gpu/onnxruntime-cuda.sh) and rebuild, so "
    "the plugin loads ONNX Runtime from .deps/onnxruntime-cuda-<version>";

}  // namespace

void CudaProvider::find(OrtEnv* env) {
  const std::string folder = core_folder();
  const std::string library = folder + "/libonnxruntime_providers_cuda.so";
  if (access(library.c_str(), R_OK) != 0) {
    unavailable_ = "this ONNX Runtime has no CUDA execution provider (no " + library + "); " + kHowToInstall;
    return;
  }
  driver_ = probe_cuda_driver(kCudaNeeded);
  if (!driver_.unusable.empty()) {
    unavailable_ = driver_.unusable;
    return;
  }
  const OrtApi* api = ort_api();
  // ORT loads the library now: a CUDA library it links that is missing fails here, by name.
  if (OrtStatus* st = api->RegisterExecutionProviderLibrary(env, "CUDA", library.c_str())) {
    Error e = take_status(st, "ONNX Runtime's CUDA provider cannot be loaded");
    unavailable_ = e.detail;
    return;
  }
  const OrtEpDevice* const* all = nullptr;
  size_t count = 0;
  if (OrtStatus* st = api->GetEpDevices(env, &all, &count)) {
    unavailable_ = take_status(st, "listing ONNX Runtime's devices").detail;
    return;
  }
  for (size_t i = 0; i < count; ++i)
    if (std::strcmp(api->EpDevice_EpName(all[i]), kCudaEpName) == 0) ep_devices_.push_back(all[i]);
  if (ep_devices_.empty()) {
    unavailable_ = "ONNX Runtime's CUDA provider loaded but offers no device (the driver lists " +
                   std::to_string(driver_.devices.size()) + ")";
    return;
  }
  summary_ = "CUDA " + cuda_version_text(driver_.version) + " driver, provider " + library;
}

Error CudaProvider::append(OrtEnv* env, OrtSessionOptions* options) const {
  if (ep_devices_.empty()) return sdk::unsupported("target gpu is not available: " + unavailable_);
  return take_status(
      ort_api()->SessionOptionsAppendExecutionProvider_V2(options, env, ep_devices_.data(), 1, nullptr, nullptr, 0),
      "adding the CUDA execution provider");
}

}  // namespace wasinn::onnxruntime
